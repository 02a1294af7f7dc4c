"""The Group Accounts tools through call_tool: per tool a normal call, bad input and a refusal,
the events and e-mails of an account's contacts, the workspace's usage, and an agent's review of
an account from start to end."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from apps.apikeys.services import api_key_create, budget_reserve, budget_settle
from apps.calendars import services as calendars
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, ok, person_without, refused, structured
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory
from apps.core.kinds.sources import Message
from apps.core.kinds.testing import Mailbox, areas, without_areas
from apps.documents import services as documents
from apps.files import services as files
from apps.groupaccounts.models import GroupAccount, GroupAccountContact
from apps.groupaccounts.tests.factories import GroupAccountFactory
from apps.groupaccounts.tests.samples import with_contact


def event(actor: Any, *, attendees: list[dict[str, Any]] = (), **fields: Any) -> Any:  # type: ignore[assignment]
    """An event in the actor's own calendar (the Calendars area's service)."""
    calendar = calendars.default_calendar(actor=actor)
    return calendars.event_create(actor=actor, calendar=calendar, fields=fields, attendees=list(attendees))


def file(actor: Any, name: str, text: str = "a note") -> Any:
    """A file stored through the Files area's service."""
    return files.file_create(actor=actor, name=name, content=text.encode(), folder=None)


TOOLS = {
    "createGroupAccount": ("groupaccounts.edit", {"account": {"name": "X"}}),
    "updateGroupAccount": ("groupaccounts.edit", {"groupAccountId": 1, "changes": {}}),
    "getGroupAccount": ("groupaccounts.view", {"groupAccountId": 1}),
    "examineGroupAccount": ("groupaccounts.view", {"groupAccountId": 1}),
    "listGroupAccounts": ("groupaccounts.view", {}),
    "searchGroupAccounts": ("groupaccounts.view", {"query": "x"}),
    "linkContactToGroupAccount": ("groupaccounts.edit", {"groupAccountId": 1, "contactId": 1}),
    "unlinkContactFromGroupAccount": ("groupaccounts.edit", {"groupAccountId": 1, "contactId": 1}),
    "getGroupAccountUpcomingEvents": ("groupaccounts.view", {"groupAccountId": 1}),
    "searchGroupAccountEmails": ("groupaccounts.view", {"groupAccountId": 1}),
    "getMyBillingOverview": ("groupaccounts.billing", {}),
    "linkDocumentToGroupAccount": ("groupaccounts.edit", {"groupAccountId": 1, "documentId": 1}),
    "linkFileToGroupAccount": ("groupaccounts.edit", {"groupAccountId": 1, "fileId": 1}),
    "getGroupAccountAttachments": ("groupaccounts.view", {"groupAccountId": 1}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


@pytest.mark.parametrize(
    ("user", "name"),
    [
        ("viewer", "createGroupAccount"),
        ("viewer", "linkContactToGroupAccount"),
        ("member", "getMyBillingOverview"),
    ],
)
def test_lower_roles_are_refused(people, user, name):
    with pytest.raises(ToolNotFound):
        call(people[user], name, TOOLS[name][1])


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in TOOLS
        if "groupAccountId" in TOOLS[n][1]
        and n not in ("linkContactToGroupAccount", "unlinkContactFromGroupAccount")
    ],
)
def test_an_unknown_account_is_not_found(people, name):
    assert "Group account 999999 was not found" in refused(
        people["admin"], name, {**TOOLS[name][1], "groupAccountId": 999999}
    )


def test_create_normalises_and_get_shows_everything(people):
    organisation = OrganisationFactory(actor=people["member"], organisation_name="Initech Ltd")

    created = ok(
        people["member"],
        "createGroupAccount",
        {
            "account": {
                "name": " Initech  group ",
                "kind": "supplier",
                "website": "initech.example",
                "emailDomains": ["@Initech.example", "initech.example"],
                "organisationId": organisation.pk,
                "tags": ["Key", "key"],
            }
        },
    )
    answer = ok(people["viewer"], "getGroupAccount", {"groupAccountId": created["id"]})

    assert answer["name"] == "Initech group"
    assert (answer["kind"], answer["website"], answer["emailDomains"], answer["tags"]) == (
        "supplier",
        "https://initech.example",
        ["initech.example"],
        ["key"],
    )
    assert answer["organisation"]["displayName"] == "Initech Ltd"
    assert answer["owner"]["email"] == "member@acme.example"


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"name": "Taken"}, "already a group account called"),
        ({"name": "N", "emailDomains": ["not a domain"]}, "not a domain name"),
        ({"name": "N", "website": "ht!tp://x"}, "not a web address"),
        ({"name": "N", "kind": "enemy"}, "kind"),
        ({"name": "N", "ownerEmail": "ghost@acme.example"}, "Nobody in this workspace"),
        ({"name": "N", "organisationId": 999999}, "Contact 999999 was not found"),
        ({"industry": "no name"}, "name"),
    ],
)
def test_create_refuses_bad_input_and_writes_nothing(people, fields, said):
    GroupAccountFactory(actor=people["member"], name="taken")
    count = GroupAccount.objects.count()

    assert said in refused(people["member"], "createGroupAccount", {"account": fields})
    assert GroupAccount.objects.count() == count


def test_an_organisation_must_be_an_organisation_contact(people):
    person = ContactFactory(actor=people["member"])
    account = GroupAccountFactory(actor=people["member"])

    assert "is a person, not an organisation" in refused(
        people["member"],
        "updateGroupAccount",
        {"groupAccountId": account.pk, "changes": {"organisationId": person.pk}},
    )


def test_update_changes_only_what_is_sent(people):
    account = GroupAccountFactory(actor=people["member"], name="Globo", industry="gyms")

    answer = ok(
        people["member"],
        "updateGroupAccount",
        {"groupAccountId": account.pk, "changes": {"kind": "partner", "ownerEmail": "admin@acme.example"}},
    )

    assert answer["changed"] == ["kind", "owner"]
    assert answer["account"]["industry"] == "gyms"


def test_list_and_search(people):
    first = GroupAccountFactory(actor=people["member"], name="Alpha", kind="supplier", tags=["vip"])
    GroupAccountFactory(actor=people["member"], name="Beta", industry="steel", email_domains=["beta.example"])
    contact = ContactFactory(actor=people["member"], first_name="Zelda", email="zelda@alpha.example")
    ok(people["member"], "linkContactToGroupAccount", {"groupAccountId": first.pk, "contactId": contact.pk})

    assert [i["name"] for i in ok(people["viewer"], "listGroupAccounts", {})["items"]] == ["Alpha", "Beta"]
    assert [i["name"] for i in ok(people["viewer"], "listGroupAccounts", {"kind": "supplier"})["items"]] == [
        "Alpha"
    ]
    assert [i["name"] for i in ok(people["viewer"], "listGroupAccounts", {"tag": "VIP"})["items"]] == [
        "Alpha"
    ]
    assert ok(people["viewer"], "listGroupAccounts", {})["items"][0]["contacts"] == 1
    assert [i["name"] for i in ok(people["viewer"], "searchGroupAccounts", {"query": "steel"})["items"]] == [
        "Beta"
    ]
    assert [
        i["name"] for i in ok(people["viewer"], "searchGroupAccounts", {"query": "beta.example"})["items"]
    ] == ["Beta"]
    assert [i["name"] for i in ok(people["viewer"], "searchGroupAccounts", {"query": "zelda"})["items"]] == [
        "Alpha"
    ]
    assert "`query`" in refused(people["viewer"], "searchGroupAccounts", {"query": ""})
    assert "`limit`" in refused(people["viewer"], "listGroupAccounts", {"limit": 0})


def test_search_finds_an_account_by_its_contacts_only_where_the_contact_may_be_seen(people):
    account = GroupAccountFactory(actor=people["member"], name="Gamma")
    secret = ContactFactory(actor=people["member"], first_name="Quentin", visibility="private")
    ok(people["member"], "linkContactToGroupAccount", {"groupAccountId": account.pk, "contactId": secret.pk})

    def found(user: str) -> list[str]:
        return [i["name"] for i in ok(people[user], "searchGroupAccounts", {"query": "quentin"})["items"]]

    assert found("member") == ["Gamma"]
    assert found("viewer") == []


def test_contacts_are_linked_with_a_role_and_unlinked(people):
    account = GroupAccountFactory(actor=people["member"])
    contact = ContactFactory(actor=people["member"], first_name="Hank")

    linked = ok(
        people["member"],
        "linkContactToGroupAccount",
        {"groupAccountId": account.pk, "contactId": contact.pk, "role": "billing"},
    )
    relinked = ok(
        people["member"],
        "linkContactToGroupAccount",
        {"groupAccountId": account.pk, "contactId": contact.pk, "role": "billing"},
    )

    assert (linked["changed"], relinked["changed"]) == (True, False)
    assert GroupAccountContact.objects.get(account=account).role == "billing"
    ok(
        people["member"],
        "unlinkContactFromGroupAccount",
        {"groupAccountId": account.pk, "contactId": contact.pk},
    )
    assert not GroupAccountContact.objects.exists()
    assert "is not linked" in refused(
        people["member"],
        "unlinkContactFromGroupAccount",
        {"groupAccountId": account.pk, "contactId": contact.pk},
    )
    assert "Contact 999999 was not found" in refused(
        people["member"], "linkContactToGroupAccount", {"groupAccountId": account.pk, "contactId": 999999}
    )
    assert "Group account 999999 was not found" in refused(
        people["member"], "linkContactToGroupAccount", {"groupAccountId": 999999, "contactId": contact.pk}
    )


def test_upcoming_events_are_those_of_its_contacts_from_the_calendar(people):
    account, ada = with_contact(people["member"], first_name="Ada", email="ada@alpha.example")
    bob = ContactFactory(actor=people["member"], first_name="Bob", email="bob@alpha.example")
    ok(people["member"], "linkContactToGroupAccount", {"groupAccountId": account.pk, "contactId": bob.pk})
    both = event(
        people["member"],
        title="Both of them",
        start=(timezone.now() + timedelta(days=2)).strftime("%Y-%m-%dT10:00"),
        attendees=[{"contact_id": ada.pk}, {"contact_id": bob.pk}],
    )
    event(
        people["member"],
        title="Ada alone",
        start=(timezone.now() + timedelta(days=1)).strftime("%Y-%m-%dT10:00"),
        attendees=[{"email": "ada@alpha.example"}],
    )
    event(
        people["member"],
        title="Nobody of theirs",
        start=(timezone.now() + timedelta(days=1)).strftime("%Y-%m-%dT11:00"),
    )

    answer = ok(people["viewer"], "getGroupAccountUpcomingEvents", {"groupAccountId": account.pk})

    assert [event["title"] for event in answer["events"]] == ["Ada alone", "Both of them"]
    assert answer["events"][1]["id"] == both.pk
    assert "`days`" in refused(
        people["viewer"], "getGroupAccountUpcomingEvents", {"groupAccountId": account.pk, "days": 0}
    )
    with without_areas("calendars"):
        assert "Calendars area is not installed" in refused(
            people["viewer"], "getGroupAccountUpcomingEvents", {"groupAccountId": account.pk}
        )


def test_emails_need_a_mailbox_and_are_those_of_its_contacts(people):
    account, _ada = with_contact(people["member"], email="ada@alpha.example")
    now = timezone.now()
    mailbox = Mailbox(
        "groupaccounts",
        messages=[
            Message(1, "Quote", "ada@alpha.example", ["sales@acme.example"], now - timedelta(days=3)),
            Message(2, "Other company", "x@other.example", ["sales@acme.example"], now - timedelta(days=1)),
            Message(3, "Order", "sales@acme.example", ["ADA@alpha.example"], now - timedelta(days=2)),
        ],
    )

    with without_areas("emailinbox"):
        message = refused(people["viewer"], "searchGroupAccountEmails", {"groupAccountId": account.pk})
    assert "Email Inbox area is not installed" in message
    with areas(mailbox):
        found = ok(people["viewer"], "searchGroupAccountEmails", {"groupAccountId": account.pk})
        filtered = ok(
            people["viewer"], "searchGroupAccountEmails", {"groupAccountId": account.pk, "query": "quote"}
        )
        empty = GroupAccountFactory(actor=people["member"])
        no_address = refused(people["viewer"], "searchGroupAccountEmails", {"groupAccountId": empty.pk})

    assert [m["subject"] for m in found["items"]] == ["Order", "Quote"]
    assert [m["subject"] for m in filtered["items"]] == ["Quote"]
    assert "no contact with an e-mail address" in no_address


def test_billing_reports_the_workspaces_spend_calls_and_records(people):
    created = api_key_create(user=people["owner"], label="reports")
    reservation = budget_reserve(key=created.key, micro_usd=3_000_000)
    budget_settle(reservation=reservation, micro_usd=2_500_000)
    GroupAccountFactory(actor=people["member"])
    ok(people["viewer"], "listGroupAccounts", {})

    answer = ok(people["owner"], "getMyBillingOverview", {})

    assert answer["aiSpend"]["total"] == {"microUsd": 2_500_000, "usd": "2.50"}
    assert answer["yourAiSpend"]["activeKeys"] == 1
    assert answer["toolCalls"]["thisMonth"] >= 1
    assert {"tool": "listGroupAccounts", "calls": 1} in answer["toolCalls"]["topToolsThisMonth"]
    assert answer["records"]["group accounts"] == 1
    assert "getMyBillingOverview" in [
        c["tool"] for c in ok(people["owner"], "getMyBillingOverview", {})["toolCalls"]["topToolsThisMonth"]
    ]
    assert "is not an argument" in refused(people["owner"], "getMyBillingOverview", {"month": "2026-01"})


def test_an_agent_reviews_an_account_before_a_meeting(people):
    """Scenario: create the account, link its people, see their meeting and e-mails in one look."""
    agent = people["member"]
    session = MemorySession()
    grace = ContactFactory(actor=agent, first_name="Grace", email="grace@navy.example")
    created = structured(
        call(
            agent,
            "createGroupAccount",
            {"account": {"name": "US Navy", "kind": "customer", "emailDomains": ["navy.example"]}},
            session=session,
        )
    )
    structured(
        call(
            agent,
            "linkContactToGroupAccount",
            {"groupAccountId": created["id"], "contactId": grace.pk, "role": "admiral"},
            session=session,
        )
    )
    structured(call(agent, "getCalendarSummary", {}, session=session))
    structured(
        call(
            agent,
            "createCalendarEvent",
            {
                "title": "Compiler demo",
                "start": (timezone.now() + timedelta(days=4)).strftime("%Y-%m-%dT14:00"),
                "attendees": [{"contactId": grace.pk}],
            },
            session=session,
        )
    )
    mailbox = Mailbox(
        "groupaccounts",
        messages=[Message(9, "Demo agenda", "grace@navy.example", ["member@acme.example"], timezone.now())],
    )

    with areas(mailbox):
        review = structured(
            call(agent, "examineGroupAccount", {"groupAccountId": created["id"]}, session=session)
        )

    assert [(p["contact"]["displayName"], p["role"], p["health"]) for p in review["people"]] == [
        ("Grace", "admiral", "healthy")
    ]
    assert review["health"] == "healthy"
    assert [e["title"] for e in review["upcomingEvents"]["events"]] == ["Compiler demo"]
    assert review["recentEmails"]["available"] and [
        m["subject"] for m in review["recentEmails"]["recent"]
    ] == ["Demo agenda"]
    assert review["attachments"]["documents"] == [] and review["attachments"]["files"] == []
    with without_areas("emailinbox"):
        without = structured(
            call(agent, "examineGroupAccount", {"groupAccountId": created["id"]}, session=session)
        )
    assert (
        without["recentEmails"]["available"] is False and "Email Inbox" in without["recentEmails"]["reason"]
    )


def test_the_settings_page_shows_accounts_and_their_contacts(people, acme_client):
    account, _contact = with_contact(people["member"], first_name="Pagey")
    acme_client.force_login(people["viewer"])

    page = acme_client.get("/settings/group-accounts/")

    assert page.status_code == 200
    assert account.name.encode() in page.content and b"Pagey (buyer)" in page.content


def test_documents_and_files_linked_to_an_account_show_with_it(people):
    member = people["member"]
    account = GroupAccountFactory(actor=member)
    contract = documents.document_create(actor=member, title="Framework contract")
    logo = file(member, "logo.txt", "a logo")

    linked = ok(
        member, "linkDocumentToGroupAccount", {"groupAccountId": account.pk, "documentId": contract.pk}
    )
    ok(member, "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": logo.pk})
    again = ok(member, "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": logo.pk})

    assert (linked["title"], linked["attached"], linked["changed"]) == ("Framework contract", True, True)
    assert again["changed"] is False
    shown = ok(people["viewer"], "getGroupAccountAttachments", {"groupAccountId": account.pk})
    assert [(d["title"], d["available"]) for d in shown["documents"]] == [("Framework contract", True)]
    assert [(f["title"], f["size"], f["attachedBy"]["email"]) for f in shown["files"]] == [
        ("logo.txt", 6, "member@acme.example")
    ]
    examined = ok(people["viewer"], "examineGroupAccount", {"groupAccountId": account.pk})
    assert examined["attachments"] == shown

    ok(member, "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": logo.pk, "remove": True})
    assert ok(member, "getGroupAccountAttachments", {"groupAccountId": account.pk})["files"] == []


def test_attaching_what_does_not_exist_or_is_not_yours_to_see_is_refused(people, globex):
    from django_tenants.utils import schema_context

    from apps.accounts.models import User

    account = GroupAccountFactory(actor=people["member"])
    with schema_context("globex"):
        theirs = file(User.objects.get(email="member@globex.example"), "globex.txt")

    missing = refused(
        people["member"], "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": 999999}
    )
    elsewhere = refused(
        people["member"], "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": theirs.pk}
    )
    unknown_account = refused(
        people["member"], "linkDocumentToGroupAccount", {"groupAccountId": 999999, "documentId": 1}
    )

    assert "File 999999 was not found" in missing
    assert f"File {theirs.pk} was not found" in elsewhere
    assert "Group account 999999 was not found" in unknown_account
    assert ok(people["member"], "getGroupAccountAttachments", {"groupAccountId": account.pk})["files"] == []


def test_without_the_files_area_the_link_is_refused_and_the_area_named(people):
    account = GroupAccountFactory(actor=people["member"])

    with without_areas("files"):
        message = refused(
            people["member"], "linkFileToGroupAccount", {"groupAccountId": account.pk, "fileId": 1}
        )
        shown = ok(people["member"], "getGroupAccountAttachments", {"groupAccountId": account.pk})

    assert "not available in this workspace" in message
    assert shown["unavailableAreas"] == ["files"]


def test_someone_who_may_only_see_accounts_cannot_attach_to_one_through_the_files_tool(people):
    """attachEntityFile needs files.edit; changing the account's links needs groupaccounts.edit too."""
    from apps.accounts.services import role_create, user_change_role

    account = GroupAccountFactory(actor=people["member"])
    role = role_create(
        actor=people["owner"],
        name="File clerk",
        permissions=["files.view", "files.edit", "groupaccounts.view"],
    )
    clerk = people["viewer"]
    user_change_role(actor=people["owner"], user=clerk, role=role)
    note = file(people["member"], "note.txt")
    clerk.refresh_from_db()

    message = refused(
        clerk, "attachEntityFile", {"fileId": note.pk, "entityType": "group_account", "entityId": account.pk}
    )

    assert "may see group accounts but not change them" in message


def test_billing_counts_the_files_storage(people):
    file(people["member"], "big.txt", "x" * 1000)

    storage = ok(people["owner"], "getMyBillingOverview", {})["storage"]

    assert storage["available"] is True and storage["bytes"] >= 1000
    with without_areas("files"):
        assert ok(people["owner"], "getMyBillingOverview", {})["storage"]["available"] is False


# --- deleteGroupAccount -------------------------------------------------------------------------


def _confirming(user: Any, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return call(
        user,
        name,
        arguments,
        capabilities={"elicitation": {}},
        elicit=lambda m, s: {"action": "accept", "content": {"confirm": True}},
    )


def test_delete_archives_an_account_that_its_page_restores(people, acme_client):
    admin = people["admin"]
    account, contact = with_contact(admin)

    answer = structured(_confirming(admin, "deleteGroupAccount", {"groupAccountId": account.pk}))

    account.refresh_from_db()
    assert answer["id"] == account.pk and answer["archivedAt"] and account.deleted_at is not None
    assert GroupAccountContact.objects.filter(account=account, contact=contact).exists()
    assert "is archived" in refused(people["viewer"], "getGroupAccount", {"groupAccountId": account.pk})
    again = _confirming(admin, "deleteGroupAccount", {"groupAccountId": account.pk})
    assert again["isError"] is True and "restored on the Group accounts page" in again["content"][0]["text"]

    acme_client.force_login(admin)
    assert account.name in acme_client.get("/settings/group-accounts/").content.decode()
    acme_client.post(f"/settings/group-accounts/{account.pk}/restore/")
    account.refresh_from_db()
    assert account.deleted_at is None


def test_delete_of_an_unknown_account_is_not_found(people):
    result = _confirming(people["admin"], "deleteGroupAccount", {"groupAccountId": 10**12})
    assert result["isError"] is True and "not found" in result["content"][0]["text"]


def test_members_may_not_delete_accounts(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "deleteGroupAccount", {"groupAccountId": 1})
