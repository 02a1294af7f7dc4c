"""Agent Dialer rows for tests. A call or a text message exists once the provider placed it, so
these stand its row in directly (the provider's part is tested against the loopback server in
test_dialer.py); the do-not-call list and pronunciations go through the services."""

import secrets
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.utils import timezone

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, access_rows
from apps.dialer import services
from apps.dialer.models import Call, Message
from apps.dialer.tests.servers import VERIFIED


def zone_at(hour: int) -> str:
    """A time zone where it is now `hour` o'clock (Etc/GMT-N is N hours east of UTC)."""
    now = timezone.now()
    for offset in range(-12, 15):
        name = f"Etc/GMT{-offset:+d}"
        if now.astimezone(ZoneInfo(name)).hour == hour:
            return name
    raise AssertionError(hour)


def placed_call(
    actor: Any, *, to: str = "+442071838750", script: str = "Hello from Acme", **fields: Any
) -> Call:
    return Call.objects.create(
        sid="CA" + secrets.token_hex(16),
        to_number=to,
        from_number=VERIFIED,
        script=script,
        consent="written consent on the web form",
        callee_zone="Europe/London",
        created_by=actor,
        **fields,
    )


def sent_message(
    actor: Any, *, to: str = "+442071838750", body: str = "Your parcel shipped", **fields: Any
) -> Message:
    return Message.objects.create(
        sid="SM" + secrets.token_hex(16),
        direction=Message.Direction.OUTBOUND,
        to_number=to,
        from_number=VERIFIED,
        body=body,
        created_by=actor,
        **fields,
    )


def _logged(person: Any, kind: str) -> set[int] | None:
    return listed(person, "searchCallLogs", {"kind": kind, "limit": 100}, first="getDialerSummary")


@access_rows("dialer.Call")
def _calls(people: dict[str, Any]) -> AccessRows:
    """Each call its maker's alone (the area's admins see every one)."""
    rows = AccessRows(
        own={"member": [placed_call(people["member"])], "owner": [placed_call(people["owner"])]}
    )
    rows.listed = lambda person: _logged(person, "call")
    return rows


@access_rows("dialer.Message")
def _messages(people: dict[str, Any]) -> AccessRows:
    rows = AccessRows(
        own={"member": [sent_message(people["member"])], "owner": [sent_message(people["owner"])]}
    )
    rows.listed = lambda person: _logged(person, "sms")
    return rows


@access_rows("dialer.DoNotCall")
def _do_not_call(people: dict[str, Any]) -> AccessRows:
    entry = services.dnc_add(people["owner"], number="+442071838751", reason="asked by letter")
    return AccessRows(everyone=[entry])


@access_rows("dialer.Pronunciation")
def _pronunciations(people: dict[str, Any]) -> AccessRows:
    saved = services.pronunciation_save(people["owner"], term="Atrium", say_as="AY-tree-um")
    assert saved is not None
    return AccessRows(everyone=[saved])


@factories.privacy_rows("dialer")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's call and text message, naming the marker."""
    owner = people["owner"]
    call = placed_call(
        owner,
        script=f"Hello {marker}, about your order",
        contact_name=marker,
        ended_at=timezone.now() - timedelta(minutes=1),
    )
    rows.add("callId", record=call)
    sent_message(owner, body=f"{marker}: your parcel shipped")
