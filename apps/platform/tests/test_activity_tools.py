"""The activity log: searchActivityLog and getActivityDetail over the log of tool calls and the
records' histories. Per tool a normal call, bad input and a refusal; and what one person may read
of another's: their own entries only, unless they audit, and never an entry about a record they
may not see (an owner's private contact), whoever made it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.models import ToolCall
from apps.catalogue.testing import call, ok, person_without, refused
from apps.contacts.models import ContactEvent
from apps.contacts.tests.factories import ContactFactory

pytestmark = pytest.mark.django_db

MARKER = "Zephyrine-Quillfeather"


def _ids(answer: dict) -> list[str]:
    return [item["id"] for item in answer["items"]]


def test_a_member_reads_their_own_calls_and_changes_newest_first(people):
    member = people["member"]
    contact = ContactFactory(actor=member, first_name="Ada", visibility="workspace")
    ok(member, "updateContact", {"contactId": contact.pk, "changes": {"city": "Leeds"}})
    ok(people["admin"], "getMyProfile")

    answer = ok(member, "searchActivityLog", {"limit": 50})

    assert answer["everyone"] is False
    items = answer["items"]
    assert [item["at"] for item in items] == sorted((item["at"] for item in items), reverse=True)
    assert {item["who"]["id"] for item in items} == {member.pk}  # not the admin's call
    [update_call] = [item for item in items if item["source"] == "call" and item["tool"] == "updateContact"]
    assert update_call["outcome"] == "ok" and update_call["area"] == "contacts"
    [change] = [item for item in items if item["source"] == "change" and item["tool"] == "updateContact"]
    assert change["recordKind"] == "contact" and change["recordId"] == contact.pk
    assert change["recordTitle"] == "Ada" and change["area"] == "contacts"
    assert change["id"].startswith("contacts.contactevent:")

    detail = ok(member, "getActivityDetail", {"entryId": change["id"]})
    assert detail["door"] == "mcp" and detail["client"] == "test client"
    assert detail["changes"]["city"][-1] == "Leeds"
    call_detail = ok(member, "getActivityDetail", {"entryId": update_call["id"]})
    assert call_detail["durationMs"] is not None and call_detail["refusal"] == ""


def test_the_filters_narrow_the_entries(people):
    member = people["member"]
    contact = ContactFactory(actor=member, first_name="Bea")
    other = ContactFactory(actor=member, first_name="Cy")
    ok(member, "updateContact", {"contactId": contact.pk, "changes": {"city": "York"}})
    refused(member, "updateContact", {"contactId": 10**9, "changes": {"city": "York"}})

    of_record = ok(member, "searchActivityLog", {"recordKind": "contact", "recordId": contact.pk})
    assert of_record["items"] and {item["recordId"] for item in of_record["items"]} == {contact.pk}
    assert other.pk not in {item["recordId"] for item in of_record["items"]}

    failed = ok(member, "searchActivityLog", {"outcome": "error", "toolName": "updateContact"})
    assert [item["errorCode"] for item in failed["items"]] == ["NOT_FOUND"]
    assert all(item["source"] == "call" for item in failed["items"])

    changes = ok(member, "searchActivityLog", {"source": "changes", "area": "contacts"})
    assert changes["items"] and {item["source"] for item in changes["items"]} == {"change"}

    future = (timezone.now() + timedelta(days=1)).isoformat()
    assert ok(member, "searchActivityLog", {"since": future})["items"] == []


def test_pages_follow_the_cursor_without_repeating_or_skipping(people):
    member = people["member"]
    for _number in range(3):
        ok(member, "getMyProfile")
    asked = {"source": "calls", "toolName": "getMyProfile"}
    everything = _ids(ok(member, "searchActivityLog", {**asked, "limit": 100}))
    assert len(everything) == 3

    first = ok(member, "searchActivityLog", {**asked, "limit": 2})
    ok(member, "getMyProfile")  # a newer entry arriving meanwhile does not shift the next page
    second = ok(member, "searchActivityLog", {**asked, "limit": 2, "cursor": first["nextCursor"]})

    assert _ids(first) + _ids(second) == everything
    assert second["nextCursor"] is None


def test_an_admin_reads_everyones_entries_and_why_a_call_was_refused(people):
    member = people["member"]
    ok(member, "getMyProfile")
    refusal = ToolCall.objects.create(
        at=timezone.now(), user=member, tool="manageRole", outcome="not_found", refusal="role", duration_ms=1
    )

    answer = ok(people["admin"], "searchActivityLog", {"personId": member.pk, "source": "calls"})

    assert answer["everyone"] is True
    assert {item["who"]["email"] for item in answer["items"]} == {member.email}
    detail = ok(people["admin"], "getActivityDetail", {"entryId": f"call:{refusal.pk}"})
    assert detail["refusal"] == "role" and detail["outcome"] == "not_found"
    # The person reads their own refused call, never why: the workspace's set-up (SPEC 7.2).
    assert ok(member, "getActivityDetail", {"entryId": f"call:{refusal.pk}"})["refusal"] == ""


def test_another_persons_private_record_is_never_listed_found_or_named(people):
    owner, member, viewer = people["owner"], people["member"], people["viewer"]
    private = ContactFactory(actor=owner, first_name=MARKER, visibility="private")
    ok(owner, "updateContact", {"contactId": private.pk, "changes": {"city": MARKER}})
    # A change a member made through a tool, to a record then made private by its owner.
    shared = ContactFactory(actor=owner, first_name=f"{MARKER} Shared", visibility="workspace")
    ok(member, "updateContact", {"contactId": shared.pk, "changes": {"jobTitle": MARKER}})
    ok(owner, "updateContact", {"contactId": shared.pk, "changes": {"visibility": "private"}})
    hidden_events = ContactEvent.objects.filter(contact__in=[private, shared])

    for person in (member, viewer):
        listing = ok(person, "searchActivityLog", {"limit": 100})
        assert MARKER not in str(listing)
        assert not {item["recordId"] for item in listing["items"]} & {private.pk, shared.pk}
        for event in hidden_events:
            message = refused(person, "getActivityDetail", {"entryId": f"contacts.contactevent:{event.pk}"})
            assert "was not found" in message and MARKER not in message
        message = refused(person, "searchActivityLog", {"recordKind": "contact", "recordId": private.pk})
        assert "was not found" in message and MARKER not in message

    # The admin audits everyone, and sees every contact: the owner's entries are theirs to read.
    audited = ok(people["admin"], "searchActivityLog", {"recordKind": "contact", "recordId": private.pk})
    assert audited["items"] and {item["who"]["id"] for item in audited["items"]} == {owner.pk}


def test_bad_input_is_refused_with_what_to_do(people):
    member = people["member"]

    assert "cursor" in refused(member, "searchActivityLog", {"cursor": "not-a-cursor"})
    now = timezone.now()
    assert "`since`: must be before until" in refused(
        member,
        "searchActivityLog",
        {"since": now.isoformat(), "until": (now - timedelta(hours=1)).isoformat()},
    )
    assert "together" in refused(member, "searchActivityLog", {"recordKind": "contact"})
    assert "is not an area with activity" in refused(member, "searchActivityLog", {"area": "nowhere"})
    assert "not a kind of record" in refused(
        member, "searchActivityLog", {"recordKind": "spaceship", "recordId": 1}
    )
    assert "was not found" in refused(member, "getActivityDetail", {"entryId": "call:999999999"})
    assert "was not found" in refused(member, "getActivityDetail", {"entryId": "nowhere.nothing:1"})
    assert refused(member, "getActivityDetail", {"entryId": "call; drop table"})


def test_someone_elses_activity_is_refused_to_a_person_who_does_not_audit(people):
    member = people["member"]
    ok(people["owner"], "getMyProfile")
    owners_call = ToolCall.objects.filter(user=people["owner"]).latest("at")

    message = refused(member, "searchActivityLog", {"personId": people["owner"].pk})
    assert "only your own activity" in message
    assert "was not found" in refused(member, "getActivityDetail", {"entryId": f"call:{owners_call.pk}"})
    # Their own id is theirs to give.
    assert ok(member, "searchActivityLog", {"personId": member.pk})["everyone"] is False


def test_a_role_without_platform_view_neither_lists_nor_calls_them(acme):
    person = person_without("platform.view", email="no-platform-view@acme.example")
    for name, arguments in (("searchActivityLog", {}), ("getActivityDetail", {"entryId": "call:1"})):
        with pytest.raises(ToolNotFound):
            call(person, name, arguments)
