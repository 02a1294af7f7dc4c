"""Public holidays, offline, from the holidays package: a country's (and its subdivision's) in a
year, named in English where the package has English names."""

import datetime
from dataclasses import dataclass

import holidays

from apps.platform.errors import HolidayYearOutOfRange, NoHolidays, UnknownSubdivision

ENGLISH = ("en_US", "en_GB")


@dataclass(frozen=True)
class Holidays:
    subdivision: str
    days: list[tuple[datetime.date, str]]
    subdivisions: list[str]


def of(code: str, *, year: int, subdivision: str | None = None) -> Holidays:
    """The public holidays of country `code` (alpha-2) in `year`, its subdivision's if given."""
    supported = holidays.list_supported_countries()
    if code not in supported:
        raise NoHolidays(country=code)
    calendar = holidays.country_holidays(code)
    if not calendar.start_year <= year <= calendar.end_year:
        raise HolidayYearOutOfRange(
            country=code, first=calendar.start_year, last=calendar.end_year, year=year
        )
    subdivisions = list(supported[code])
    chosen = ""
    if subdivision:
        aliases = {name.lower(): sub for name, sub in calendar.subdivisions_aliases.items()}
        wanted = subdivision.strip()
        chosen = next((sub for sub in subdivisions if sub.lower() == wanted.lower()), "")
        chosen = chosen or aliases.get(wanted.lower(), "")
        if not chosen:
            raise UnknownSubdivision(
                subdivision=subdivision, country=code, known=", ".join(subdivisions) or "none"
            )
    language = next((each for each in ENGLISH if each in calendar.supported_languages), None)
    days = holidays.country_holidays(code, subdiv=chosen or None, years=year, language=language)
    return Holidays(subdivision=chosen, days=sorted(days.items()), subdivisions=subdivisions)
