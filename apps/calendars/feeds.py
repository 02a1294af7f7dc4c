"""Outside iCalendar feeds imported into a calendar (manageCalendar, action subscribe), read with
apps.core.ical.

The feed's URL follows the rules of every URL a person gives the service (apps.core.outbound:
https to a public address; loopback only where WEBHOOKS_ALLOW_LOOPBACK allows it, in
development and tests). A feed behind HTTP Basic authentication needs a password: the tool asks
the person for it through secure input (apps.catalogue.secure_input), never through the model,
and it is kept encrypted on the feed (`CalendarFeed.password_encrypted`) for the next import.

Each import copies the feed's events (VEVENT) into the calendar, keyed by their UID: new ones are
created, ones imported before are updated (one trashed since is left alone). Two calendars may
import the same feed: the second's copies get UIDs of their own, as UIDs are unique. Cancelled
events are imported as cancelled.
"""

import base64
import logging
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.calendars import services
from apps.calendars.errors import FeedNotICalendar, FeedPasswordRefused, FeedTooLarge, FeedUnreachable
from apps.calendars.models import Calendar, CalendarFeed, Event
from apps.calendars.permissions import CalendarsPerm
from apps.core import encryption, ical, outbound, times
from apps.core.actors import require
from apps.core.errors import invalid

logger = logging.getLogger(__name__)

MAX_FEED_BYTES = 5 * 1024 * 1024
MAX_EVENTS = 2000
FETCH_TIMEOUT_SECONDS = 15.0


@dataclass
class Imported:
    feed: CalendarFeed
    created: int
    updated: int
    skipped: int


def check_feed_url(url: str, *, require_resolution: bool = False) -> outbound.Target:
    return outbound.check_given(
        url,
        noun=_("The feed URL"),
        refused=lambda message: invalid("feed.url", message),
        require_resolution=require_resolution,
    )


def stored_password(*, calendar: Calendar, url: str, username: str) -> str | None:
    """The password kept for this feed and user name, if any."""
    feed = CalendarFeed.objects.filter(calendar=calendar, url=url, username=username).first()
    if feed is None or not feed.password_encrypted:
        return None
    try:
        return encryption.decrypt(feed.password_encrypted)
    except encryption.DecryptionFailed:
        return None


def feed_import(*, actor: Any, calendar: Calendar, url: str, username: str, password: str | None) -> Imported:
    """Fetches the feed and copies its events into `calendar`; keeps the feed (and its password,
    encrypted) for the next import."""
    require(actor, CalendarsPerm.MANAGE)
    require(actor, CalendarsPerm.EDIT)
    target = check_feed_url(url, require_resolution=True)
    headers = {"Accept": "text/calendar"}
    if username:
        credentials = f"{username}:{password or ''}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(credentials).decode()
    try:
        body = outbound.fetch(
            target, headers=headers, timeout=FETCH_TIMEOUT_SECONDS, max_bytes=MAX_FEED_BYTES
        )
    except outbound.FetchFailed as failed:
        if failed.status in {401, 403} and username:
            raise FeedPasswordRefused(url=url) from None
        raise FeedUnreachable(url=url, problem=failed.message) from None
    events = _events(body, url)
    feed, _created = CalendarFeed.objects.get_or_create(
        calendar=calendar, url=url, defaults={"created_by": actor, "username": username}
    )
    feed.username = username
    feed.password_encrypted = encryption.encrypt(password) if username and password else ""
    feed.last_imported_at = timezone.now()
    feed.save()
    created = updated = skipped = 0
    # A series' moved occurrences (RECURRENCE-ID) share its UID: each is an event of its own here,
    # and the occurrence it replaces is left out of the series, as its cancelled ones (EXDATE) are.
    replaced: dict[str, list[Any]] = {}
    for component in events:
        if component.get("RECURRENCE-ID") is not None:
            replaced.setdefault(_uid(component), []).append(component.get("RECURRENCE-ID"))
    for component in sorted(events, key=lambda c: c.get("RECURRENCE-ID") is not None):
        outcome = _copy(actor, calendar, component, replaced.get(_uid(component), []))
        created += outcome == "created"
        updated += outcome == "updated"
        skipped += outcome == "skipped"
    logger.info(
        "feed %s imported into calendar %s: %s new, %s updated", feed.pk, calendar.pk, created, updated
    )
    return Imported(feed=feed, created=created, updated=updated, skipped=skipped)


def _exdates(component: Any) -> list[Any]:
    value = component.get("EXDATE")
    return [] if value is None else [value]


def _events(body: bytes, url: str) -> list[Any]:
    try:
        events = ical.events_in(body)
    except ical.Unreadable:
        raise FeedNotICalendar(url=url) from None
    if len(events) > MAX_EVENTS:
        raise FeedTooLarge(url=url, most=MAX_EVENTS)
    return events


def _uid(component: Any) -> str:
    return str(component.get("UID") or "").strip()[:255]


def _moments(value: Any) -> list[Any]:
    """The dates or date-times of an EXDATE or RECURRENCE-ID property (one, or several lines)."""
    found = []
    for line in value if isinstance(value, list) else [value]:
        found += [item.dt for item in line.dts] if hasattr(line, "dts") else [line.dt]
    return found


def _excluded(event: Event, values: list[Any]) -> list[Any]:
    """The starts these EXDATE / RECURRENCE-ID values name, as instants of `event`'s series."""
    zone = ZoneInfo(event.time_zone)
    excluded = set()
    for value in values:
        for moment in _moments(value):
            if not isinstance(moment, datetime):
                moment = datetime.combine(
                    moment, event.starts_at.astimezone(zone).timetz().replace(tzinfo=None)
                )
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=zone)
            excluded.add(moment)
    return sorted(excluded)


def _zone_of(value: Any) -> str:
    """The IANA zone of a DTSTART (its TZID), or "" (a date, UTC, a zone this machine does not know)."""
    moment = getattr(value, "dt", None)
    name = getattr(getattr(moment, "tzinfo", None), "key", "") or str(
        getattr(value, "params", {}).get("TZID") or ""
    )
    return name if isinstance(moment, datetime) and name in times.known_zones() else ""


def _copy(actor: Any, calendar: Calendar, component: Any, replaced: list[Any]) -> str:
    uid = _uid(component)
    start = component.get("DTSTART")
    if not uid or start is None:
        return "skipped"
    recurrence_id = component.get("RECURRENCE-ID")
    if recurrence_id is not None:
        # A moved occurrence: kept under a UID of its own, made from the series' and its original start.
        try:
            [original] = _moments(recurrence_id)
        except ValueError:
            return "skipped"
        uid = f"{original.isoformat()}/{uid}"[:255]
        replaced = []
    try:
        starts, all_day = ical.moment_of(start)
        fields: dict[str, Any] = {
            "title": str(component.get("SUMMARY") or _("(no title)"))[:300],
            "description": str(component.get("DESCRIPTION") or "")[:10_000],
            "location": str(component.get("LOCATION") or "")[:300],
            "start": starts,
            "all_day": all_day,
            "status": "cancelled"
            if str(component.get("STATUS") or "").upper() == "CANCELLED"
            else "confirmed",
        }
        end = component.get("DTEND")
        if end is not None:
            ends, _all_day = ical.moment_of(end)
            if all_day:
                # iCalendar's all-day end is exclusive; ours is the last day.
                ends = (date.fromisoformat(ends[:10]) - timedelta(days=1)).isoformat()
            if ends[:10] >= starts[:10]:
                fields["end"] = ends
        rule = component.get("RRULE")
        fields["recurrence"] = rule.to_ical().decode() if rule is not None else ""
        zone = _zone_of(start)
        if zone:
            # The series repeats at its own wall-clock time: 09:00 in New York is 14:00 or 13:00 in
            # London, depending on whose clocks have changed.
            fields["time_zone"] = zone
    except (ValueError, TypeError, AttributeError):
        return "skipped"
    # The copy in this calendar, trashed too; its UID is the feed's, or (when another calendar
    # holds a copy of the same feed already: UIDs are unique among all events) one of its own.
    own = f"{uid}/calendar-{calendar.pk}"[:255]
    existing = Event._base_manager.filter(calendar=calendar, uid__in=[uid, own]).order_by("pk").first()
    if existing is None and Event._base_manager.filter(uid=uid).exists():
        uid = own
    try:
        with transaction.atomic():
            if existing is None:
                event = services.event_create(actor=actor, calendar=calendar, fields=fields, attendees=[])
                excluded = _excluded(event, [*_exdates(component), *replaced]) if event.recurrence else []
                # The feed's events are someone else's: the importer neither organises them nor is
                # busy at their times (checkAvailability counts an organiser's events).
                Event.objects.filter(pk=event.pk).update(uid=uid, excluded=excluded, organizer=None)
                return "created"
            if existing.deleted_at is not None:
                return "skipped"
            services.event_update(actor=actor, event=existing, fields=fields)
            excluded = _excluded(existing, [*_exdates(component), *replaced]) if existing.recurrence else []
            if excluded != sorted(existing.excluded):
                existing.excluded = excluded
                existing.sequence += 1
                existing.save(update_fields=["excluded", "sequence"])
            if existing.organizer_id is not None:  # imported before the feed's events had none
                Event.objects.filter(pk=existing.pk).update(organizer=None)
            return "updated"
    except Exception as error:  # one bad event does not stop the others
        logger.info("a feed event was skipped: %s", type(error).__name__)
        return "skipped"
