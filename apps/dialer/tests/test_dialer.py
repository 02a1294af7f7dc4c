"""The Agent Dialer through call_tool against a loopback server speaking Twilio's REST API: a call
placed, answered by a machine, the voicemail dropped, the signed callbacks verified (a forged one
refused, a repeated one acted on once), the cost recorded; text messages and STOP; the refusals
before anything is placed (do-not-call, calling hours, emergency and premium numbers, unverified
caller ids, no consent); who sees what; the page; no provider configured."""

from decimal import Decimal
from typing import Any

import pytest
from django.test import override_settings
from django.urls import reverse

from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, confirmed, person_with, structured, text_of
from apps.dialer import rules, services
from apps.dialer.models import Call, Callback, DoNotCall, Message
from apps.dialer.tests.factories import placed_call, sent_message, zone_at
from apps.dialer.tests.servers import OWNED, VERIFIED, Twilio, twilio
from apps.tenancy import links

CALLEE = "+442071838750"
CONSENT = "written consent on the order form, 2026-11-02"


def dial(user: Any, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    """A dialer tool call after getDialerSummary in the same session, the user confirming."""
    session = MemorySession()
    structured(call(user, "getDialerSummary", {}, session=session))
    return call(
        user, name, arguments or {}, session=session, capabilities={"elicitation": {}}, elicit=confirmed
    )


def ok(user: Any, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return structured(dial(user, name, arguments))


def refused(user: Any, name: str, arguments: dict[str, Any] | None = None) -> str:
    result = dial(user, name, arguments)
    assert result["isError"] is True, result
    return text_of(result)


def _call_args(**given: Any) -> dict[str, Any]:
    return {
        "to": CALLEE,
        "script": "Hello, this is Acme about your Atrium order.",
        "consent": CONSENT,
        "voicemail": "Sorry we missed you: Acme about your order.",
        "calleeTimeZone": zone_at(12),
        **given,
    }


@pytest.fixture
def served():
    with twilio(Twilio()) as server:
        yield server


def test_a_call_answered_by_a_machine_gets_its_voicemail_and_its_cost(people, served, acme_client):
    member = people["member"]
    placed = ok(member, "makeCall", _call_args(contactName="Ana Lima"))

    assert (placed["status"], placed["to"], placed["callerId"]) == ("queued", CALLEE, OWNED)
    call_row = Call.objects.get(pk=placed["id"])
    asked = served.calls[call_row.sid]
    assert (asked["To"], asked["From"], asked["MachineDetection"]) == (CALLEE, OWNED, "DetectMessageEnd")
    assert asked["Url"].endswith("/dialer/callbacks/voice") and asked["StatusCallback"].endswith(
        "/dialer/callbacks/status"
    )
    assert asked["events"] == ["initiated", "ringing", "answered", "completed"]

    served.answer(call_row.sid, "machine_end_beep")
    (twiml,) = served.deliver(acme_client)
    assert twiml.status_code == 200 and twiml["Content-Type"] == "application/xml"
    assert b"<Say>Sorry we missed you: Acme about your order.</Say><Hangup/>" in twiml.content

    served.complete(call_row.sid, 21)
    callback = served.pending[0]
    (answered,) = served.deliver(acme_client)
    assert answered.status_code == 204
    detail = ok(member, "getCallDetail", {"callId": placed["id"]})
    assert (detail["status"], detail["answeredBy"], detail["voicemailLeft"]) == (
        "completed",
        "machine_end_beep",
        True,
    )
    assert (detail["durationSeconds"], Decimal(str(detail["cost"])), detail["currency"]) == (
        21,
        Decimal("0.013"),
        "USD",
    )
    assert detail["consent"] == CONSENT and detail["providerId"] == call_row.sid

    # The same callback again changes nothing; a forged one is refused and records nothing.
    served.pending.append(callback)
    assert served.deliver(acme_client)[0].status_code == 204
    assert Callback.objects.filter(sid=call_row.sid).count() == 1
    forged = {**callback.params, "CallStatus": "failed", "CallDuration": "0"}
    answer = acme_client.post("/dialer/callbacks/status", forged, HTTP_X_TWILIO_SIGNATURE=callback.signature)
    assert answer.status_code == 403
    assert acme_client.post("/dialer/callbacks/status", forged).status_code == 403
    call_row.refresh_from_db()
    assert (call_row.status, call_row.duration_seconds) == ("completed", 21)
    summary = ok(member, "getDialerSummary")
    assert summary["callsThisMonth"] == 1 and Decimal(str(summary["spentThisMonth"]["USD"])) == Decimal(
        "0.013"
    )


def test_a_person_hears_the_script_with_the_saved_pronunciations(people, served, acme_client):
    ok(people["admin"], "savePronunciation", {"term": "Atrium", "sayAs": "AY-tree-um"})
    placed = ok(people["member"], "makeCall", _call_args())
    sid = Call.objects.get(pk=placed["id"]).sid
    served.answer(sid, "human")
    (twiml,) = served.deliver(acme_client)
    assert b"about your AY-tree-um order.</Say>" in twiml.content
    assert Call.objects.get(pk=placed["id"]).voicemail_left_at is None


def test_a_text_message_is_sent_priced_and_stop_puts_the_number_on_the_list(people, served, acme_client):
    member = people["member"]
    sent = ok(
        member,
        "sendSms",
        {
            "to": "+44 20 7183 8750",
            "body": "Your parcel shipped.",
            "callerId": VERIFIED,
            "calleeTimeZone": zone_at(12),
        },
    )
    assert (sent["to"], sent["sender"], sent["segments"], sent["status"]) == (CALLEE, VERIFIED, 1, "queued")
    message = Message.objects.get(pk=sent["id"])
    assert served.messages[message.sid]["Body"] == "Your parcel shipped."
    served.delivered(message.sid)
    served.deliver(acme_client)
    message.refresh_from_db()
    assert (message.status, message.price) == ("delivered", Decimal("0.00790"))

    served.inbound(links.page("dialer:sms"), CALLEE, "Stop")  # the number's webhook, set to this host
    (answer,) = served.deliver(acme_client)
    assert answer.status_code == 200 and answer.content.endswith(b"<Response/>")
    entry = DoNotCall.objects.get(number=CALLEE)
    assert entry.source == DoNotCall.Source.SMS_STOP
    inbound = Message.objects.get(direction="inbound")
    assert inbound.created_by == member and inbound.body == "Stop"
    before = len(served.messages)
    assert "do-not-call list" in refused(
        member, "sendSms", {"to": CALLEE, "body": "Still there?", "calleeTimeZone": zone_at(12)}
    )
    assert len(served.messages) == before


def test_refusals_come_before_anything_is_placed_or_charged(people, served):
    member, admin = people["member"], people["admin"]
    ok(admin, "manageDoNotCall", {"action": "add", "number": "+44 20 7183 8751", "reason": "asked by letter"})
    cases = [
        ({"to": "+442071838751"}, "do-not-call list (asked by letter)"),
        ({"calleeTimeZone": zone_at(3)}, "outside the calling hours 8:00 to 21:00"),
        ({"to": "911"}, "emergency number"),
        ({"to": "112"}, "emergency number"),
        ({"to": "+19005551234"}, "premium-rate"),
        ({"to": "555-not-a-number"}, "`to`: not a valid phone number"),
        ({"to": "+1 202 555"}, "`to`: not a valid phone number"),
        ({"callerId": "+14155550199"}, "is not a verified number"),
        ({"consent": ""}, "prior express consent"),
        ({"calleeTimeZone": "Mars/Olympus"}, "`calleeTimeZone`: not a time zone"),
    ]
    for given, said in cases:
        message = refused(member, "makeCall", _call_args(**given))
        assert said in message, (given, message)
    assert served.calls == {} and not Call.objects.exists()


def test_the_calling_hours_hold_in_every_zone_of_a_country_without_an_address(settings):
    from datetime import UTC, datetime

    noon_in_new_york = datetime(2026, 12, 7, 17, 0, tzinfo=UTC)
    zones = rules.zones_of("+12025550143")
    assert "America/New_York" in zones and "Pacific/Honolulu" in zones
    late = rules.outside_hours(zones, noon_in_new_york)
    assert late is not None and late.local.hour < 8  # still early morning somewhere in the US
    assert rules.outside_hours(["America/New_York"], noon_in_new_york) is None
    assert rules.segments("a" * 160) == 1 and rules.segments("a" * 161) == 2 and rules.segments("é" * 10) == 1
    assert (
        rules.segments("😀" * 40) == 2
        and rules.is_stop(" unsubscribe. ")
        and not rules.is_stop("stop by later")
    )


def test_ending_and_voicemail_on_calls_in_their_states(people, served):
    member = people["member"]
    placed = ok(member, "makeCall", _call_args(voicemail=""))
    sid = Call.objects.get(pk=placed["id"]).sid
    left = ok(member, "leaveVoicemail", {"callId": placed["id"], "message": "Call us back on 0800."})
    assert left["left"] is False and Call.objects.get(pk=placed["id"]).voicemail == "Call us back on 0800."
    ended = ok(member, "endCall", {"callId": placed["id"]})
    assert ended["status"] == "canceled" and served.updates[-1] == (sid, {"Status": "canceled"})
    assert "is canceled" in refused(member, "endCall", {"callId": placed["id"]})
    assert "is canceled" in refused(member, "leaveVoicemail", {"callId": placed["id"], "message": "Hi"})

    machine = placed_call(member, status="in-progress", answered_by="machine_end_beep")
    served.calls[machine.sid] = {"sid": machine.sid, "status": "in-progress"}
    assert ok(member, "leaveVoicemail", {"callId": machine.pk, "message": "Hello & bye"})["left"] is True
    assert served.updates[-1][1]["Twiml"].endswith("<Say>Hello &amp; bye</Say><Hangup/></Response>")
    human = placed_call(member, status="in-progress", answered_by="human")
    assert "answered by a person" in refused(member, "leaveVoicemail", {"callId": human.pk, "message": "Hi"})
    assert "`message`: is required" in refused(
        member, "leaveVoicemail", {"callId": machine.pk, "message": "  "}
    )


def test_each_person_sees_their_own_calls_and_never_another_persons(people, served):
    member, owner = people["member"], people["owner"]
    mine = placed_call(member, contact_name="Member lead")
    theirs = placed_call(owner, contact_name="Secret merger partner")
    sent_message(owner, body="Secret merger text")
    found = ok(member, "searchCallLogs", {"query": "lead"})
    assert [entry["id"] for entry in found["items"]] == [mine.pk]
    assert ok(member, "searchCallLogs", {"query": "merger"})["total"] == 0
    message = refused(member, "getCallDetail", {"callId": theirs.pk})
    assert "not found" in message.lower() and "merger" not in message
    assert "not found" in refused(member, "endCall", {"callId": theirs.pk}).lower()
    assert Call.objects.get(pk=theirs.pk).status == "queued"
    everything = ok(people["admin"], "searchCallLogs", {"query": "merger"})
    assert {entry["kind"] for entry in everything["items"]} == {"call", "sms"}
    assert ok(member, "searchCallLogs", {"query": "2071838750", "kind": "call"})["total"] == 1


def test_the_do_not_call_list_is_read_by_all_changed_by_managers_and_removal_is_confirmed(people, served):
    viewer, admin = people["viewer"], people["admin"]
    added = ok(admin, "manageDoNotCall", {"action": "add", "number": "+1 (202) 555-0143", "reason": "asked"})
    assert added["listed"] is True and added["entries"][0]["number"] == "+12025550143"
    assert ok(viewer, "manageDoNotCall", {"action": "check", "number": "+12025550143"})["listed"] is True
    assert [e["number"] for e in ok(viewer, "manageDoNotCall", {"action": "list"})["entries"]] == [
        "+12025550143"
    ]
    with pytest.raises(ToolNotFound):
        dial(viewer, "makeCall", _call_args())
    assert "permission" in refused(viewer, "manageDoNotCall", {"action": "add", "number": CALLEE}).lower()
    assert "`number`: is required" in refused(admin, "manageDoNotCall", {"action": "add"})
    assert "not on the do-not-call list" in refused(
        admin, "manageDoNotCall", {"action": "remove", "number": CALLEE}
    )

    session = MemorySession()
    structured(call(admin, "getDialerSummary", {}, session=session))
    unconfirmed = call(
        admin, "manageDoNotCall", {"action": "remove", "number": "+12025550143"}, session=session
    )
    assert unconfirmed["isError"] and "confirmationToken" in text_of(unconfirmed)
    assert services.blocked("+12025550143") is not None
    assert ok(admin, "manageDoNotCall", {"action": "remove", "number": "+12025550143"})["listed"] is False
    assert services.blocked("+12025550143") is None
    assert ok(admin, "manageDoNotCall", {"action": "add", "number": "+12025550143"})["listed"] is True


def test_pronunciations_are_saved_changed_and_removed(people):
    admin = people["admin"]
    assert ok(admin, "savePronunciation", {"term": "Nguyen", "sayAs": "Win"})["sayAs"] == "Win"
    assert ok(admin, "savePronunciation", {"term": "nguyen", "sayAs": "Nwin"})["sayAs"] == "Nwin"
    assert services.spoken("Hello Mr NGUYEN, Nguyenson") == "Hello Mr Nwin, Nguyenson"
    assert ok(admin, "savePronunciation", {"term": "Nguyen", "sayAs": ""})["removed"] is True
    assert "has no pronunciation" in refused(admin, "savePronunciation", {"term": "Nguyen", "sayAs": ""})
    with pytest.raises(ToolNotFound):
        dial(people["viewer"], "savePronunciation", {"term": "X", "sayAs": "Y"})


def test_kept_caller_ids_serve_only_the_credential_that_read_them(people, served):
    # A workspace may give its own account (Settings → Integrations): another that names the same
    # account SID (not secret) with another token never reads this account's numbers.
    member = people["member"]
    ok(member, "makeCall", _call_args())
    with override_settings(ATRIUM_DIALER_AUTH_TOKEN="not-the-token"):
        message = refused(member, "makeCall", _call_args(callerId="+14155550199"))
    assert "refused the service's credentials" in message
    assert OWNED not in message and VERIFIED not in message


def test_the_provider_refusing_is_a_clear_error_and_nothing_is_kept(people):
    with twilio(Twilio(status=400)):
        assert "answered HTTP 400 (provider code 21211)" in refused(
            people["member"], "makeCall", _call_args()
        )
    with twilio(Twilio()), override_settings(ATRIUM_DIALER_AUTH_TOKEN="wrong"):
        assert "refused the service's credentials" in refused(people["member"], "makeCall", _call_args())
    assert not Call.objects.exists()


def test_without_a_provider_the_summary_says_so_and_every_other_tool_says_what_to_set(people):
    member = people["member"]
    with override_settings(ATRIUM_DIALER_ACCOUNT_SID="", ATRIUM_DIALER_AUTH_TOKEN=""):
        summary = ok(member, "getDialerSummary")
        assert summary["configured"] is False and summary["callerIds"] == []
        assert "ATRIUM_DIALER_ACCOUNT_SID" in summary["message"]
        for name, arguments in [
            ("makeCall", _call_args()),
            ("sendSms", {"to": CALLEE, "body": "Hi"}),
            ("endCall", {"callId": placed_call(member).pk}),
            ("leaveVoicemail", {"callId": placed_call(member).pk, "message": "Hi"}),
        ]:
            message = refused(member, name, arguments)
            assert f"{name} is not configured" in message and "ATRIUM_DIALER_AUTH_TOKEN" in message
        # Nobody's signature verifies without a token.
        assert not services.verified("http://localhost/dialer/callbacks/status", {}, "x")
    first = call(member, "makeCall", _call_args(), session=MemorySession())
    assert "getDialerSummary must be called first" in text_of(first)


def test_the_page_shows_a_person_their_own_calls_and_the_admin_every_one(people, acme_client):
    placed_call(people["member"], contact_name="Member quay call", price=Decimal("0.013"), price_unit="USD")
    placed_call(people["owner"], contact_name="Owner merger call")
    services.dnc_add(people["admin"], number="+442071838753", reason="asked by e-mail")
    reader = person_with({"dialer.view"}, email="dialer-reader@acme.example")

    acme_client.force_login(reader)
    shown = acme_client.get(reverse("dialer:dialer")).content.decode()
    assert "merger" not in shown and "quay" not in shown and "+442071838753" in shown
    acme_client.force_login(people["member"])
    shown = acme_client.get(reverse("dialer:dialer")).content.decode()
    assert "Member quay call" in shown and "Owner merger call" not in shown and "0.01300 USD" in shown
    acme_client.force_login(people["owner"])
    shown = acme_client.get(reverse("dialer:dialer")).content.decode()
    assert "Member quay call" in shown and "Owner merger call" in shown
