"""A tool call runs in its caller's zone (their own, else their workspace's), as their pages do: a
time given without an offset and "today" are theirs, and the server's UTC comes back after."""

from datetime import UTC

from django.utils import timezone

from apps.accounts import services
from apps.catalogue.testing import MemorySession, ok
from apps.tasks.models import Task


def _due(user, when: str) -> str:  # type: ignore[no-untyped-def]
    made = ok(user, "createTask", {"title": f"Call back {when}", "dueAt": when})
    return Task.objects.get(pk=made["id"]).due_at.astimezone(UTC).isoformat()


def test_a_time_without_an_offset_is_the_callers_then_the_workspaces(acme, people):
    member = people["member"]
    acme.time_zone = "Europe/Berlin"
    acme.save(update_fields=["time_zone"])

    assert _due(member, "2031-01-10T17:00:00") == "2031-01-10T16:00:00+00:00"
    services.user_set_time_zone(user=member, time_zone="Asia/Tokyo")
    assert _due(member, "2031-01-10T17:00:00") == "2031-01-10T08:00:00+00:00"
    # An offset given is kept, whoever calls.
    assert _due(member, "2031-01-10T17:00:00+01:00") == "2031-01-10T16:00:00+00:00"
    assert timezone.get_current_timezone_name() == "UTC"


def test_today_is_the_callers_day(acme, people):
    from datetime import datetime

    owner = people["owner"]
    now = datetime.now(UTC)
    # A zone whose day is not UTC's now: fourteen hours ahead late in the UTC day, eleven behind early.
    zone, shift = ("Pacific/Kiritimati", 1) if now.hour >= 12 else ("Pacific/Pago_Pago", -1)
    services.user_set_time_zone(user=owner, time_zone=zone)

    session = MemorySession()
    ok(owner, "getAccountingSummary", {}, session=session)
    answer = ok(owner, "getBalanceSheet", {}, session=session)

    day = datetime.fromisoformat(answer["asOf"]).date()
    assert (day - now.date()).days == shift
    assert timezone.get_current_timezone_name() == "UTC"
