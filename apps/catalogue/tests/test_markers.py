"""The dispatcher enforces markers: MANDATORY FIRST CALL per session, and confirmation of GATED,
HIGH RISK and DESTRUCTIVE tools by elicitation or by a confirmation token."""

import re

import pytest

from apps.catalogue.dispatch import MemorySession
from apps.catalogue.models import ToolCall
from apps.catalogue.testing import call, structured, temporary_tools, text_of
from apps.catalogue.tests.marked_tools import open_desk, wipe_contact
from apps.contacts.models import Contact


@pytest.fixture
def noted(acme):
    return Contact.objects.create(first_name="Nora", notes="keep me")


def token_in(result):
    match = re.search(r'"confirmationToken": "([^"]+)"', text_of(result))
    assert match, text_of(result)
    return match.group(1)


# --- MANDATORY FIRST CALL -----------------------------------------------------------------------


def test_other_tools_of_the_area_wait_for_the_first_call(people):
    session = MemorySession()
    with temporary_tools(open_desk):
        refused = call(people["viewer"], "listContacts", session=session)
        assert refused["isError"] is True
        assert text_of(refused) == (
            "openContactsDesk must be called first: it is the mandatory first call for the contacts tools "
            "in each session. Call openContactsDesk, then call listContacts again."
        )

        structured(call(people["viewer"], "openContactsDesk", session=session))
        structured(call(people["viewer"], "listContacts", session=session))


def test_the_first_call_counts_for_one_session_only(people):
    with temporary_tools(open_desk):
        structured(call(people["viewer"], "openContactsDesk", session=MemorySession()))

        assert call(people["viewer"], "listContacts", session=MemorySession())["isError"] is True


def test_tools_of_other_areas_do_not_wait_for_it(people):
    with temporary_tools(open_desk):
        structured(call(people["viewer"], "searchTools", {"query": "contact"}, session=MemorySession()))


def test_a_missing_first_call_is_logged(people):
    with temporary_tools(open_desk):
        call(people["viewer"], "listContacts", session=MemorySession())

    # The latest: rows committed by other modules' live tests may be there too.
    assert ToolCall.objects.filter(user=people["viewer"], tool="listContacts").latest("id").outcome == (
        "first_call_required"
    )


# --- confirmation with a token ------------------------------------------------------------------


def test_without_elicitation_the_first_call_asks_for_confirmation_and_does_nothing(people, noted):
    with temporary_tools(wipe_contact):
        result = call(people["member"], "wipeContact", {"name": "Nora"})

    noted.refresh_from_db()
    assert noted.notes == "keep me"
    assert result["isError"] is True
    message = text_of(result)
    assert message.startswith("Confirmation required: wipeContact is marked DESTRUCTIVE")
    assert "Nothing was done" in message
    assert '{"name": "Nora"}' in message


def test_the_same_call_with_the_token_runs_once(people, noted):
    session = MemorySession()
    with temporary_tools(wipe_contact):
        token = token_in(call(people["member"], "wipeContact", {"name": "Nora"}, session=session))
        done = call(
            people["member"], "wipeContact", {"name": "Nora", "confirmationToken": token}, session=session
        )
        noted.refresh_from_db()
        assert structured(done)["message"] == "wiped 1"
        assert noted.notes == ""

        again = call(
            people["member"], "wipeContact", {"name": "Nora", "confirmationToken": token}, session=session
        )

    assert again["isError"] is True
    assert "That confirmation token is not valid for this call" in text_of(again)
    assert token_in(again) != token


def test_a_token_does_not_confirm_other_arguments(people, noted):
    session = MemorySession()
    with temporary_tools(wipe_contact):
        token = token_in(call(people["member"], "wipeContact", {"name": "Someone"}, session=session))
        result = call(
            people["member"], "wipeContact", {"name": "Nora", "confirmationToken": token}, session=session
        )

    noted.refresh_from_db()
    assert result["isError"] is True
    assert noted.notes == "keep me"


def test_a_token_does_not_travel_to_another_session(people, noted):
    with temporary_tools(wipe_contact):
        token = token_in(call(people["member"], "wipeContact", {"name": "Nora"}, session=MemorySession()))
        result = call(
            people["member"],
            "wipeContact",
            {"name": "Nora", "confirmationToken": token},
            session=MemorySession(),
        )

    noted.refresh_from_db()
    assert result["isError"] is True
    assert noted.notes == "keep me"


def test_a_token_does_not_work_for_another_person_in_the_same_session(people, noted):
    session = MemorySession()
    with temporary_tools(wipe_contact):
        token = token_in(call(people["member"], "wipeContact", {"name": "Nora"}, session=session))
        result = call(
            people["admin"], "wipeContact", {"name": "Nora", "confirmationToken": token}, session=session
        )

    noted.refresh_from_db()
    assert result["isError"] is True
    assert noted.notes == "keep me"


def test_an_expired_token_is_refused(people, noted, settings):
    settings.ATRIUM_CONFIRMATION_TTL_SECONDS = -1
    session = MemorySession()
    with temporary_tools(wipe_contact):
        token = token_in(call(people["member"], "wipeContact", {"name": "Nora"}, session=session))
        result = call(
            people["member"], "wipeContact", {"name": "Nora", "confirmationToken": token}, session=session
        )

    noted.refresh_from_db()
    assert result["isError"] is True
    assert noted.notes == "keep me"


def test_a_tool_without_confirmation_refuses_a_confirmation_token(people):
    result = call(people["member"], "getContact", {"contactId": 1, "confirmationToken": "x"})

    assert "`confirmationToken` is not an argument it takes" in text_of(result)


def test_invalid_arguments_are_reported_before_asking_the_user(people):
    asked = []
    with temporary_tools(wipe_contact):
        result = call(
            people["member"],
            "wipeContact",
            {"name": 5},
            capabilities={"elicitation": {}},
            elicit=lambda message, schema: (
                asked.append(message) or {"action": "accept", "content": {"confirm": True}}
            ),
        )

    assert asked == []
    assert "Invalid arguments for wipeContact" in text_of(result)


# --- confirmation by elicitation ----------------------------------------------------------------


def elicitation(answer):
    questions = []

    def elicit(message, schema):
        questions.append((message, schema))
        return answer

    return questions, elicit


def test_with_elicitation_the_user_is_asked_and_accepting_runs_the_tool(people, noted):
    questions, elicit = elicitation({"action": "accept", "content": {"confirm": True}})
    with temporary_tools(wipe_contact):
        result = call(
            people["member"], "wipeContact", {"name": "Nora"}, capabilities={"elicitation": {}}, elicit=elicit
        )

    noted.refresh_from_db()
    assert structured(result)["message"] == "wiped 1"
    assert noted.notes == ""
    message, schema = questions[0]
    assert "wipeContact" in message and "DESTRUCTIVE" in message and "Nora" in message
    assert schema["properties"]["confirm"]["type"] == "boolean"
    assert schema["required"] == ["confirm"]


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ({"action": "decline"}, "The user declined wipeContact; nothing was done."),
        ({"action": "cancel"}, "The user dismissed the confirmation of wipeContact"),
        (
            {"action": "accept", "content": {"confirm": False}},
            "The user declined wipeContact; nothing was done.",
        ),
    ],
)
def test_anything_but_a_ticked_accept_leaves_it_undone(people, noted, answer, said):
    _questions, elicit = elicitation(answer)
    with temporary_tools(wipe_contact):
        result = call(
            people["member"], "wipeContact", {"name": "Nora"}, capabilities={"elicitation": {}}, elicit=elicit
        )

    noted.refresh_from_db()
    assert noted.notes == "keep me"
    assert result["isError"] is True
    assert said in text_of(result)
    assert (
        ToolCall.objects.filter(user=people["member"], tool="wipeContact").latest("id").outcome == "declined"
    )


def test_a_failed_question_falls_back_to_a_confirmation_token(people, noted):
    def broken(message, schema):
        raise TimeoutError("no answer")

    with temporary_tools(wipe_contact):
        result = call(
            people["member"], "wipeContact", {"name": "Nora"}, capabilities={"elicitation": {}}, elicit=broken
        )

    noted.refresh_from_db()
    assert noted.notes == "keep me"
    assert token_in(result).startswith("confirm_")


def test_elicitation_is_not_used_when_the_client_did_not_declare_it(people, noted):
    questions, elicit = elicitation({"action": "accept", "content": {"confirm": True}})
    with temporary_tools(wipe_contact):
        result = call(people["member"], "wipeContact", {"name": "Nora"}, capabilities={}, elicit=elicit)

    assert questions == []
    assert result["isError"] is True
