"""The scheduling engine: a greedy packer that puts tasks' estimates into a person's free time.

Free time is the working hours of each weekday in the person's time zone (wall-clock hours, so a
day across a change of daylight saving time keeps its hours), less the busy intervals (their
calendar's, widened by the buffer on each side) and the blocks already placed. Tasks go in order of
their deadline (the goal's when they have none), then priority, then the order given; each is cut
into blocks of at most `longest` minutes (the last may be shorter, never under `shortest` unless
the whole task is), each put at the earliest free moment on a `step` boundary. A task that does
not fit before its deadline is a conflict, its blocks left out: never a block after the deadline.

Pinned blocks (a block a person moved) are placed first, where they were put; one that overlaps a
busy time is kept and said as a conflict. No I/O: times in, times out, all aware.
"""

import hashlib
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

RANK = {"urgent": 0, "high": 1, "normal": 2, "low": 3}
Interval = tuple[datetime, datetime]


@dataclass(frozen=True)
class Item:
    key: int  # the goal task's id
    title: str
    minutes: int
    priority: str = "normal"
    due: datetime | None = None
    not_before: datetime | None = None
    position: int = 0


@dataclass(frozen=True)
class Pin:
    key: int
    start: datetime


@dataclass(frozen=True)
class Block:
    key: int
    title: str
    start: datetime
    end: datetime
    pinned: bool = False


@dataclass(frozen=True)
class Clash:
    key: int
    title: str
    problem: str


@dataclass(frozen=True)
class Rules:
    zone: ZoneInfo
    start: datetime
    end: datetime
    day_starts: int = 9
    day_ends: int = 17
    buffer: timedelta = timedelta(minutes=10)
    longest: int = 120
    shortest: int = 30
    step: timedelta = timedelta(minutes=15)
    weekends: bool = False


@dataclass
class Plan:
    blocks: list[Block] = field(default_factory=list)
    conflicts: list[Clash] = field(default_factory=list)


def digest(busy: list[Interval]) -> str:
    """What a plan was made around, as a digest: the same busy times give the same text."""
    text = "|".join(f"{a.timestamp():.0f}-{b.timestamp():.0f}" for a, b in sorted(busy))
    return hashlib.sha256(text.encode()).hexdigest()


def working_hours(rules: Rules) -> list[Interval]:
    """The working intervals in [start, end), day by day in the person's zone."""
    out: list[Interval] = []
    day: date = rules.start.astimezone(rules.zone).date()
    last = rules.end.astimezone(rules.zone).date()
    while day <= last:
        if rules.weekends or day.weekday() < 5:
            opens = datetime.combine(day, time(rules.day_starts), tzinfo=rules.zone)
            closes = (
                datetime.combine(day + timedelta(days=1), time(0), tzinfo=rules.zone)
                if rules.day_ends >= 24
                else datetime.combine(day, time(rules.day_ends), tzinfo=rules.zone)
            )
            opens, closes = max(opens, rules.start), min(closes, rules.end)
            if opens < closes:
                out.append((opens, closes))
        day += timedelta(days=1)
    return out


def _overlaps(a: Interval, b: Interval) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _aligned(moment: datetime, rules: Rules) -> datetime:
    """`moment` rounded up to the next step from the window's start."""
    steps = -((rules.start - moment) // rules.step)
    return rules.start + steps * rules.step if moment > rules.start else rules.start


def _earliest(
    length: timedelta, after: datetime, before: datetime, taken: list[Interval], rules: Rules
) -> Interval | None:
    for opens, closes in working_hours(rules):
        if closes <= after:
            continue
        moment = _aligned(max(opens, after), rules)
        while moment + length <= min(closes, before):
            slot = (moment, moment + length)
            clash = next((t for t in taken if _overlaps(slot, t)), None)
            if clash is None:
                return slot
            moment = _aligned(clash[1], rules)
        if closes >= before:
            break
    return None


def _chunks(minutes: int, rules: Rules) -> list[int]:
    if minutes <= rules.longest:
        return [minutes]
    out = []
    left = minutes
    while left > 0:
        part = min(rules.longest, left)
        if 0 < left - part < rules.shortest:
            part = left - rules.shortest
        out.append(part)
        left -= part
    return out


def pack(items: list[Item], busy: list[Interval], rules: Rules, pins: list[Pin] = ()) -> Plan:  # type: ignore[assignment]
    plan = Plan()
    widened = [(a - rules.buffer, b + rules.buffer) for a, b in busy]
    taken: list[Interval] = list(widened)
    by_key = {item.key: item for item in items}
    pinned: set[int] = set()
    for pin in pins:
        item = by_key.get(pin.key)
        if item is None:
            continue
        block = Block(
            item.key, item.title, pin.start, pin.start + timedelta(minutes=item.minutes), pinned=True
        )
        if any(_overlaps((block.start, block.end), (a, b)) for a, b in busy):
            plan.conflicts.append(Clash(item.key, item.title, "the moved block overlaps a busy time"))
        due = min(item.due or rules.end, rules.end)
        if block.end > due:
            plan.conflicts.append(Clash(item.key, item.title, "the moved block ends after the deadline"))
        plan.blocks.append(block)
        taken.append((block.start - rules.buffer, block.end + rules.buffer))
        pinned.add(item.key)
    order = sorted(
        (item for item in items if item.key not in pinned),
        key=lambda item: (
            min(item.due or rules.end, rules.end),
            RANK.get(item.priority, 2),
            item.position,
            item.key,
        ),
    )
    for item in order:
        due = min(item.due or rules.end, rules.end)
        after = max(item.not_before or rules.start, rules.start)
        placed: list[Block] = []
        for minutes in _chunks(item.minutes, rules):
            slot = _earliest(timedelta(minutes=minutes), after, due, taken, rules)
            if slot is None:
                break
            placed.append(Block(item.key, item.title, slot[0], slot[1]))
            taken.append((slot[0] - rules.buffer, slot[1] + rules.buffer))
            after = slot[1]
        if len(placed) < len(_chunks(item.minutes, rules)):
            for block in placed:
                taken.remove((block.start - rules.buffer, block.end + rules.buffer))
            plan.conflicts.append(
                Clash(item.key, item.title, "no free working time for it before its deadline")
            )
            continue
        plan.blocks.extend(placed)
    plan.blocks.sort(key=lambda block: (block.start, block.key))
    return plan
