"""When a scheduled listener runs next: a cron expression (croniter) read in the workspace's time
zone, so "0 2 * * *" is 02:00 there in winter and in summer. Times are kept in UTC. A time that
does not exist on the day clocks go forward (02:30 in Europe/Paris) runs at the first moment that
does; a time that happens twice the day they go back runs once."""

from datetime import datetime
from zoneinfo import ZoneInfo

from croniter import CroniterBadCronError, CroniterBadDateError, croniter  # type: ignore[import-untyped]


class BadSchedule(Exception):
    pass


def check(expression: str) -> str:
    expression = " ".join(expression.split())
    if len(expression.split()) != 5 or not croniter.is_valid(expression):
        raise BadSchedule(expression)
    return expression


def next_after(expression: str, zone: str, moment: datetime) -> datetime:
    """The first time after `moment` (aware) that `expression` names in `zone`, in UTC."""
    place = ZoneInfo(zone)
    try:
        found = croniter(expression, moment.astimezone(place)).get_next(datetime)
    except (CroniterBadCronError, CroniterBadDateError) as error:
        raise BadSchedule(expression) from error
    wall = found.astimezone(place).replace(tzinfo=None)
    first, second = wall.replace(tzinfo=place, fold=0), wall.replace(tzinfo=place, fold=1)
    if first.utcoffset() != second.utcoffset() and found.timestamp() == second.timestamp():
        return next_after(expression, zone, found)  # the second time of a wall time: it ran at the first
    return found.astimezone(ZoneInfo("UTC"))
