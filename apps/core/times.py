"""Time zones and the one way the pages show a moment.

Every time on a page is written by the template filter `when` (apps/core/templatetags/atrium.py):

    {{ key.created_at|when }}  ->  <time datetime="2026-11-25T12:39:00Z">2026-11-25 13:39 CET</time>

in the time zone active for the request (the person's, else the workspace's: `TimeZoneMiddleware`),
or in the zone given to it (`{{ event.start|when:event.time_zone }}`). The `datetime` attribute is
always UTC, for machines; the text is for the person and names its zone.
"""

import zoneinfo
from collections.abc import Callable
from datetime import UTC, date, datetime, tzinfo
from functools import cache
from typing import Any

from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponseBase
from django.utils import timezone
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

TEXT_FORMAT = "%Y-%m-%d %H:%M"
DATE_FORMAT = "%Y-%m-%d"
# Paths whose answers are for programs: their times stay in UTC whoever is signed in (DRF writes
# datetimes in the active zone).
MACHINE_PATHS = ("/api/",)


@cache
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def zone_choices() -> list[str]:
    """The IANA names a person may choose, sorted (the aliases "UTC" first)."""
    return sorted(known_zones(), key=lambda name: (name != "UTC", name))


def validate_time_zone(value: str) -> None:
    """An IANA time zone name ("Europe/Paris"), as the zone database of this machine knows it."""
    if value not in known_zones():
        raise ValidationError(
            _("“%(value)s” is not a time zone name such as Europe/Paris or America/New_York."),
            code="invalid_time_zone",
            params={"value": value},
        )


def zone(name: str | tzinfo | None) -> tzinfo | None:
    """The zone of an IANA name (None for an empty or unknown one), or the zone itself."""
    if name is None or isinstance(name, tzinfo):
        return name
    return zoneinfo.ZoneInfo(name) if name in known_zones() else None


def abbreviation(moment: datetime) -> str:
    """The zone's abbreviation at that moment ("CET", "EDT"); zones that have none give an offset
    ("-03"), written "UTC-03" so that it still reads as a zone."""
    name = moment.tzname() or ""
    return f"UTC{name}" if name[:1] in {"+", "-"} else name


def when_text(value: datetime | date | None, in_zone: str | tzinfo | None = None) -> str:
    """The text of a moment in the one format ("2026-11-25 13:39 CET"): in `in_zone` when it is a
    known zone, else in the active one. A date alone is written as a date; None as ""."""
    if value is None:
        return ""
    if not isinstance(value, datetime):
        return value.strftime(DATE_FORMAT)
    if timezone.is_naive(value):
        value = value.replace(tzinfo=UTC)  # the database's times are UTC
    local = value.astimezone(zone(in_zone) or timezone.get_current_timezone())
    return f"{local.strftime(TEXT_FORMAT)} {abbreviation(local)}"


def machine_value(value: datetime | date) -> str:
    """The `datetime` attribute: ISO 8601 in UTC ("2026-11-25T12:39:00Z"), or the date alone."""
    if not isinstance(value, datetime):
        return value.isoformat()
    if timezone.is_naive(value):
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def when_html(value: Any, in_zone: str | tzinfo | None = None) -> SafeString | str:
    """`<time datetime="…UTC…">…in the zone…</time>`; "" for None (so `|default:"—"` still works);
    anything that is not a date or time is shown as it is, escaped."""
    if value is None or value == "":
        return ""
    if not isinstance(value, date):
        return conditional_escape(value)
    return format_html('<time datetime="{}">{}</time>', machine_value(value), when_text(value, in_zone))


def person_zone(user: Any, workspace: Any) -> tzinfo | None:
    """A person's zone: their own, else their workspace's (None outside a workspace: UTC)."""
    if workspace is None or workspace.schema_name == "public":
        return None
    own = getattr(user, "time_zone", "") if getattr(user, "is_authenticated", False) else ""
    return zone(own) or zone(workspace.time_zone)


def zone_of(request: HttpRequest) -> tzinfo | None:
    """The zone a page is shown in: the signed-in person's, else their workspace's (None outside
    a workspace: UTC, the default)."""
    return person_zone(getattr(request, "user", None), getattr(request, "tenant", None))


class TimeZoneMiddleware:
    """Activates the zone of `zone_of` for the request (after AuthenticationMiddleware, which
    gives the person); JSON APIs stay in UTC."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.path_info.startswith(MACHINE_PATHS):
            return self.get_response(request)
        active = zone_of(request)
        if active is None:
            return self.get_response(request)
        timezone.activate(active)
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
