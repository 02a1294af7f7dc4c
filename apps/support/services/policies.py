"""Customer Service's SLA policies, one a priority, set by the area's administrators: the first-reply
and resolution targets in business hours, and the business hours themselves (working days, the
day's start and end in a time zone, a country whose public holidays are not worked).

A new or changed policy counts for tickets opened (or given that priority) from then on; a ticket
keeps the due times it has. A removed policy goes to the trash: its tickets keep their due times
and their pauses are still counted in its business hours, and new tickets of its priority get
none until another is set."""

import zoneinfo
from datetime import time
from decimal import Decimal, InvalidOperation
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.support import hours
from apps.support.models import Priority, SlaPolicy
from apps.support.permissions import SupportPerm
from apps.support.services.sla import policy_for

MOST_HOURS = Decimal("9999.99")
WEEKDAYS = range(1, 8)  # ISO: 1 is Monday


def _hours(value: Any, field: str) -> Decimal:
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise invalid(field, _("give a number of business hours, such as 8 or 0.5")) from None
    if not number.is_finite() or number <= 0 or number > MOST_HOURS:
        raise invalid(field, _("give more than 0 and at most {most} business hours"), most=MOST_HOURS)
    return number.quantize(Decimal("0.01"))


def _checked(fields: dict[str, Any]) -> dict[str, Any]:
    first = _hours(fields.get("first_reply_hours"), "first_reply_hours")
    resolution = _hours(fields.get("resolution_hours"), "resolution_hours")
    if resolution < first:
        raise invalid(
            "resolution_hours",
            _("a ticket is answered before it is resolved: give at least {first}"),
            first=first,
        )
    zone = str(fields.get("time_zone") or "").strip()
    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise invalid(
            "time_zone", _("{zone!r} is no time zone: give an IANA name such as Europe/London"), zone=zone
        ) from None
    days = sorted({int(day) for day in fields.get("workdays") or [] if str(day).isdigit()})
    if not days or any(day not in WEEKDAYS for day in days):
        raise invalid("workdays", _("choose the working days, at least one"))
    starts, ends = fields.get("day_starts"), fields.get("day_ends")
    if not isinstance(starts, time) or not isinstance(ends, time) or starts >= ends:
        raise invalid("day_ends", _("the working day ends after it starts"))
    country = str(fields.get("holidays_country") or "").strip().upper()
    if country and not hours.known_country(country):
        raise invalid(
            "holidays_country",
            _(
                "{country!r} is no country or region whose holidays are known: give a country's "
                "two-letter code, such as FR, or a region's, such as GB-ENG"
            ),
            country=country,
        )
    return {
        "first_reply_hours": first,
        "resolution_hours": resolution,
        "time_zone": zone,
        "workdays": days,
        "day_starts": starts,
        "day_ends": ends,
        "holidays_country": country,
    }


def policy_save(*, actor: Actor, priority: str, fields: dict[str, Any]) -> SlaPolicy:
    """The priority's policy, made or changed; everything is checked before anything is saved."""
    require(actor, SupportPerm.ADMIN)
    if priority not in Priority.values:
        raise invalid("priority", _("choose one of {allowed}"), allowed=", ".join(Priority.values))
    values = _checked(fields)
    with transaction.atomic():
        policy = policy_for(priority)
        if policy is None:
            name = _("{priority} priority").format(priority=Priority(priority).label.capitalize())
            return SlaPolicy.objects.create(name=name, priority=priority, created_by=person(actor), **values)
        for name, value in values.items():
            setattr(policy, name, value)
        policy.save()
        return policy


def policy_remove(*, actor: Actor, priority: str) -> bool:
    """The priority's policy to the trash (False: it had none)."""
    require(actor, SupportPerm.ADMIN)
    policy = policy_for(priority)
    if policy is None:
        return False
    policy.deleted_at, policy.deleted_by = timezone.now(), person(actor)
    policy.save(update_fields=["deleted_at", "deleted_by", "updated_at"])
    return True
