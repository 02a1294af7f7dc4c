"""What a week of calling customers found: a pronunciation written with a backslash broke every
call's voice, a provider's price out of any range (or not a number) failed its status callback, a
list of caller ids of the wrong shape was a server error, a number added to the do-not-call list
again lost why (and that the person texted STOP) and could be given an end, a number with an
extension was called without it, and a callback with a duration out of range or a text message with
a NUL in it failed with a server error (the provider then retries it, and the reply is lost), and
a do-not-call entry's end given without an offset was a server error; and a person who texted
START after STOP stayed on the list for good."""

from typing import Any

import pytest

from apps.catalogue.testing import structured, text_of
from apps.dialer import services
from apps.dialer.models import Call, DoNotCall, Message
from apps.dialer.tests.servers import Twilio, twilio
from apps.dialer.tests.test_dialer import CALLEE, _call_args, dial
from apps.tenancy import links


def ok(user: Any, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return structured(dial(user, name, arguments))


def refused(user: Any, name: str, arguments: dict[str, Any] | None = None) -> str:
    result = dial(user, name, arguments)
    assert result["isError"] is True, result
    return text_of(result)


@pytest.fixture
def served():
    with twilio(Twilio()) as server:
        yield server


def test_a_pronunciation_with_a_backslash_is_said_as_written(people):
    admin = people["admin"]
    saved = ok(admin, "savePronunciation", {"term": "Nguyen", "sayAs": r"Win \1 \d"})
    assert saved["sayAs"] == r"Win \1 \d"
    assert services.spoken("Hello Nguyen, about your order") == r"Hello Win \1 \d, about your order"


@pytest.mark.parametrize("price", ["-1e12", "Infinity", "NaN", "-0.013e400"])
def test_a_price_out_of_range_is_not_kept_and_the_call_still_ends(people, served, acme_client, price):
    placed = ok(people["member"], "makeCall", _call_args())
    sid = Call.objects.get(pk=placed["id"]).sid
    served.complete(sid, 30)
    served.calls[sid]["price"] = price
    (answer,) = served.deliver(acme_client)
    assert answer.status_code == 204
    ended = Call.objects.get(pk=placed["id"])
    assert (ended.status, ended.duration_seconds, ended.price) == ("completed", 30, None)


@pytest.mark.parametrize("incoming", [5, "+12025550143", {"phone_number": "+12025550143"}])
def test_caller_ids_of_the_wrong_shape_are_the_providers_error(people, incoming):
    with twilio(Twilio(incoming=incoming)):
        summary = ok(people["member"], "getDialerSummary")
        assert summary["callerIds"] == [] and "not the expected JSON" in summary["warnings"][0]
        said = refused(people["member"], "makeCall", _call_args())
    assert "not the expected JSON" in said and not Call.objects.exists()


def test_adding_a_listed_number_again_keeps_why_and_never_shortens_it(people, served, acme_client):
    admin = people["admin"]
    served.inbound(links.page("dialer:sms"), CALLEE, "STOP")
    served.deliver(acme_client)
    entry = DoNotCall.objects.get(number=CALLEE)
    assert (entry.source, entry.reason, entry.expires_at) == ("sms-stop", "texted STOP", None)

    again = ok(
        admin, "manageDoNotCall", {"action": "add", "number": CALLEE, "expiresAt": "2027-01-31T00:00:00Z"}
    )
    (shown,) = again["entries"]
    assert (shown["source"], shown["reason"], shown["expiresAt"]) == ("sms-stop", "texted STOP", None)
    entry.refresh_from_db()
    assert (entry.source, entry.reason, entry.expires_at) == ("sms-stop", "texted STOP", None)
    # A new reason is kept; the list still blocks the number.
    ok(admin, "manageDoNotCall", {"action": "add", "number": CALLEE, "reason": "asked again by phone"})
    entry.refresh_from_db()
    assert (entry.source, entry.reason) == ("manual", "asked again by phone")
    assert "do-not-call" in refused(people["member"], "makeCall", _call_args())


def test_a_number_with_an_extension_is_refused_not_called_without_it(people, served):
    said = refused(people["member"], "makeCall", _call_args(to="+44 20 7183 8750 ext. 204"))
    assert "`to`" in said and "extension" in said
    assert served.calls == {} and not Call.objects.exists()
    assert "extension" in refused(
        people["admin"], "manageDoNotCall", {"action": "add", "number": "+442071838750 x12"}
    )


def test_a_duration_out_of_range_or_nul_in_a_callback_is_no_server_error(people, served, acme_client):
    placed = ok(people["member"], "makeCall", _call_args())
    sid = Call.objects.get(pk=placed["id"]).sid
    served.complete(sid, 30)
    made = served.pending.pop()
    served._signed(made.url, {**made.params, "CallDuration": "99999999999"})
    served.calls[sid]["duration"] = "99999999999"
    (answer,) = served.deliver(acme_client)
    assert answer.status_code == 204
    ended = Call.objects.get(pk=placed["id"])
    assert (ended.status, ended.duration_seconds) == ("completed", None)

    served.inbound(links.page("dialer:sms"), CALLEE, "Call me back\x00 after five")
    (answer,) = served.deliver(acme_client)
    assert answer.status_code == 200
    assert Message.objects.get(direction="inbound").body == "Call me back after five"


def test_times_without_an_offset_are_read_in_the_persons_zone(people, served):
    admin = people["admin"]
    added = ok(
        admin, "manageDoNotCall", {"action": "add", "number": CALLEE, "expiresAt": "2027-06-01T00:00:00"}
    )
    assert added["entries"][0]["expiresAt"].startswith("2027-0")
    assert ok(admin, "searchCallLogs", {"since": "2026-01-01T00:00:00"})["total"] == 0


def test_start_after_stop_lets_text_messages_through_again_but_not_past_a_manual_entry(
    people, served, acme_client
):
    member, admin = people["member"], people["admin"]
    texted = {"to": CALLEE, "body": "Your parcel is ready", "calleeTimeZone": _call_args()["calleeTimeZone"]}
    served.inbound(links.page("dialer:sms"), CALLEE, "STOP")
    served.inbound(links.page("dialer:sms"), CALLEE, "Start")
    served.deliver(acme_client)
    assert ok(member, "sendSms", texted)["status"] == "queued"
    assert ok(admin, "manageDoNotCall", {"action": "check", "number": CALLEE})["listed"] is False

    ok(admin, "manageDoNotCall", {"action": "add", "number": CALLEE, "reason": "asked by letter"})
    served.inbound(links.page("dialer:sms"), CALLEE, "UNSTOP")
    served.deliver(acme_client)
    assert "asked by letter" in refused(member, "sendSms", texted)


def test_the_calls_to_a_contacts_number_are_found_by_their_data_rights_request(acme, people):
    import io
    import json

    from apps.contacts.tests.factories import ContactFactory
    from apps.datarights.personal_data import personal_data_erase, personal_data_export
    from apps.dialer.tests.factories import placed_call, sent_message

    member = people["member"]
    ContactFactory(actor=member, first_name="Ines", email="ines@buyer.example", phone="+44 20 7183 8750")
    call = placed_call(member, to="+442071838750", contact_name="Ines")
    placed_call(member, to="+442071838751", contact_name="Someone else")
    sent_message(member, to="+442071838750")

    out = io.BytesIO()
    personal_data_export(workspace=acme, email="ines@buyer.example", out=out, performed_by="test")
    records = json.loads(out.getvalue())["records"]
    assert [row["contact_name"] for row in records["dialer.call"]] == ["Ines"]
    assert len(records["dialer.message"]) == 1
    # Erased, the contact goes; the call stays in the log of who made it.
    personal_data_erase(workspace=acme, email="ines@buyer.example", performed_by="test")
    assert Call.objects.get(pk=call.pk).created_by_id == member.pk
