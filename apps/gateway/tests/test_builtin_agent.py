"""The built-in agent (no model configured): single-step requests it can map with confidence to one
tool really run in the workspace, through the dispatcher, and are answered in plain English at no
cost; anything else fails saying a model backend is needed and how to configure one."""

import pytest

from apps.apikeys.models import ApiKey
from apps.catalogue.models import ToolCall
from apps.contacts.models import Contact
from apps.contacts.tests.factories import ContactFactory
from apps.gateway.agent import builtin, runner
from apps.gateway.models import Conversation

from .conftest import reply_of

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_model(settings):
    settings.GATEWAY_MODEL_BACKEND = ""


def run(conversation) -> Conversation:
    runner.run_conversation(conversation.pk)
    return Conversation.objects.get(pk=conversation.pk)


def test_find_contacts_named_runs_search_contacts_and_lists_what_it_found(make_credentials, conversation_of):
    mine = make_credentials("member")
    ada = ContactFactory(
        actor=mine.user, first_name="Adelheid", last_name="Quist", email="adelheid@example.org"
    )
    ContactFactory(actor=mine.user, first_name="Bob", last_name="Quist")

    conversation = run(conversation_of(mine, "Find contacts named Adelheid"))

    assert conversation.status == "resolved", conversation.error_message
    reply = reply_of(conversation)
    assert "Adelheid Quist" in reply and f"id {ada.pk}" in reply and "adelheid@example.org" in reply
    assert "Bob" not in reply
    assert conversation.agent == "built-in"
    assert conversation.cost_micro_usd == 0 and conversation.model_calls == 0 and conversation.tool_calls == 1
    call = ToolCall.objects.filter(user=mine.user).latest("at")
    assert (call.tool, call.outcome, call.scheme) == ("searchContacts", "ok", "access_token")
    assert call.credential == f"pat:{mine.token_id}"


def test_show_contact_by_number_runs_get_contact(make_credentials, conversation_of):
    mine = make_credentials()
    contact = ContactFactory(
        actor=mine.user, first_name="Grace", last_name="Hopper", job_title="Rear admiral"
    )

    conversation = run(conversation_of(mine, f"Show contact {contact.pk}"))

    reply = reply_of(conversation)
    assert conversation.status == "resolved"
    assert f"Grace Hopper (id {contact.pk})" in reply and "Rear admiral" in reply


def test_the_context_gives_the_thing_and_the_record(make_credentials, conversation_of):
    mine = make_credentials()
    contact = ContactFactory(actor=mine.user, first_name="Katherine", last_name="Johnson")

    conversation = run(
        conversation_of(
            mine,
            "Show me this one",
            context={"entity_type": "contact", "entity_id": str(contact.pk), "action": "get"},
        )
    )

    assert conversation.status == "resolved"
    assert f"Katherine Johnson (id {contact.pk})" in reply_of(conversation)


def test_create_a_contact_really_creates_it(make_credentials, conversation_of):
    mine = make_credentials()

    conversation = run(
        conversation_of(
            mine, "Create a contact Ada Lovelace, email: ada@analytical.example, job title: Analyst"
        )
    )

    assert conversation.status == "resolved", reply_of(conversation)
    created = Contact.objects.get(email="ada@analytical.example")
    assert (created.first_name, created.last_name, created.job_title) == ("Ada", "Lovelace", "Analyst")
    assert created.owner == mine.user
    assert f"id {created.pk}" in reply_of(conversation)


def test_update_a_contact_changes_the_fields_given(make_credentials, conversation_of):
    mine = make_credentials()
    contact = ContactFactory(actor=mine.user, first_name="Mary", last_name="Jackson")

    conversation = run(
        conversation_of(mine, f"Update contact {contact.pk}: city: Hampton, phone: +1 757 555 0100")
    )

    contact.refresh_from_db()
    assert conversation.status == "resolved", reply_of(conversation)
    assert contact.city == "Hampton" and contact.phone.replace(" ", "").startswith("+1757")
    assert "Changed:" in reply_of(conversation)


def test_metadata_named_like_arguments_fills_them(make_credentials, conversation_of):
    mine = make_credentials()
    ContactFactory(actor=mine.user, first_name="Dorothy", last_name="Vaughan", tags=["nasa"])

    conversation = run(conversation_of(mine, "List contacts", metadata={"tag": "nasa", "limit": 5}))

    assert conversation.status == "resolved"
    assert "Dorothy Vaughan" in reply_of(conversation)


def test_a_tool_the_role_may_not_use_is_not_chosen(make_credentials, conversation_of):
    viewer = make_credentials("viewer")

    conversation = run(
        conversation_of(viewer, "Create a contact Ada Lovelace, email: ada2@analytical.example")
    )

    assert conversation.status == "failed"
    assert conversation.error_code == "MODEL_BACKEND_REQUIRED"
    assert not Contact.objects.filter(email="ada2@analytical.example").exists()


def test_a_destructive_tool_is_refused_and_the_reply_says_a_person_must_confirm(
    make_credentials, conversation_of
):
    admin = make_credentials("admin")
    keep = ContactFactory(actor=admin.user, first_name="Keep", last_name="Me", email="same@example.org")
    drop = ContactFactory(actor=admin.user, first_name="Keep", last_name="Me", email="same2@example.org")

    conversation = run(
        conversation_of(
            admin,
            "Merge contacts",
            metadata={"primaryId": keep.pk, "duplicateIds": [drop.pk], "confirmationToken": "confirm_forged"},
        )
    )

    assert conversation.status == "resolved"
    reply = reply_of(conversation)
    assert "DESTRUCTIVE" in reply and "confirm" in reply and "nothing was done" in reply
    assert "confirm_" not in reply.replace("confirms", "").replace("confirm that", "")
    drop.refresh_from_db()
    assert drop.merged_into_id is None and drop.deleted_at is None
    call = ToolCall.objects.filter(user=admin.user, tool="mergeContacts").latest("at")
    assert call.outcome == "confirmation_required"


@pytest.mark.parametrize(
    "message",
    [
        "Write a short poem about our best customers",
        "Find everything",
        "Show contact 1 and contact 2",
        "Create a contact",
        "Merge contacts 3 and 4",
    ],
)
def test_what_it_cannot_map_with_confidence_fails_saying_a_model_backend_is_needed(
    make_credentials, conversation_of, message
):
    mine = make_credentials("admin")

    conversation = run(conversation_of(mine, message))

    assert conversation.status == "failed"
    assert conversation.error_code == "MODEL_BACKEND_REQUIRED"
    reply = reply_of(conversation)
    assert "ATRIUM_GATEWAY_MODEL_BACKEND" in reply and "docs/gateway.md" in reply
    assert conversation.error_message == reply
    assert conversation.cost_micro_usd == 0


def test_a_not_found_record_is_answered_not_failed(make_credentials, conversation_of):
    mine = make_credentials()

    conversation = run(conversation_of(mine, "Show contact 987654321"))

    assert conversation.status == "resolved"
    assert "did not work" in reply_of(conversation) and "ot found" in reply_of(conversation)


def test_it_costs_nothing_even_with_a_budget(make_credentials, conversation_of):
    mine = make_credentials(budget_usd_cents=1, budget_period="total")

    run(conversation_of(mine, "List contacts"))

    key = ApiKey.objects.get(pk=mine.key.pk)
    assert key.spent_micro_usd == 0 and key.reserved_micro_usd == 0


def test_the_plan_prefers_the_most_specific_tool(people):
    from apps.catalogue.testing import principal_for

    principal = principal_for(people["admin"])

    assert builtin.choose_tool(principal, "Show the history of contact 4", {}).name == "getContactHistory"
    assert builtin.choose_tool(principal, "Show contact 4", {}).name == "getContact"
    assert builtin.choose_tool(principal, "look up country Germany", {}).name == "lookupCountry"
    with pytest.raises(builtin.NotConfident):
        builtin.choose_tool(principal, "Summarise our quarter", {})


def test_a_thing_the_message_names_beats_the_one_only_the_context_gives(people):
    from apps.catalogue.testing import principal_for

    principal = principal_for(people["admin"])
    about_a_task = {"entity_type": "task", "entity_id": "7"}

    assert builtin.choose_tool(principal, "Create a contact Ada", about_a_task).name == "createContact"
    assert builtin.choose_tool(principal, "Show it", {**about_a_task, "action": "get"}).name == "getTask"


def test_the_contexts_record_is_used_only_by_a_tool_about_that_kind_of_record(
    make_credentials, conversation_of
):
    mine = make_credentials()
    contact = ContactFactory(actor=mine.user, first_name="Dorothy", last_name="Vaughan")

    conversation = run(
        conversation_of(mine, f"Show contact {contact.pk}", context={"entity_type": "task", "entity_id": "1"})
    )

    assert conversation.status == "resolved", reply_of(conversation)
    assert f"Dorothy Vaughan (id {contact.pk})" in reply_of(conversation)


def test_background_after_a_dashes_line_is_not_read_as_the_request(make_credentials, conversation_of):
    mine = make_credentials()
    message = (
        "Create a contact Ada Byron, email: ada.byron@example.org\n\n---\n"
        "The request above is step 1 of the task “Onboarding”.\nNotes: phone: +44 20 7946 0000\n"
        "Also create a contact Charles Babbage, email: charles@example.org"
    )

    conversation = run(conversation_of(mine, message, context={"entity_type": "task", "entity_id": "3"}))

    assert conversation.status == "resolved", reply_of(conversation)
    created = Contact.objects.get(email="ada.byron@example.org")
    assert (created.first_name, created.last_name, created.phone, created.notes) == ("Ada", "Byron", "", "")
    assert not Contact.objects.filter(email="charles@example.org").exists()
    assert builtin.request_of("Find contacts\n---\nmore") == "Find contacts"
    assert builtin.request_of("Find contacts named A---B") == "Find contacts named A---B"
