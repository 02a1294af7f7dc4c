"""What a week of keeping the workspace's customers and suppliers as group accounts found: an
account manager (a member), the admin and a viewer set accounts up, link their people and the
organisation's own contact, and read them back through the tools and the settings page.

- A contact that is one person's own (private) was counted in every list and search of accounts
  ("contacts": 1 to a reader who sees none), and an organisation contact that is private, or
  archived, was named in every account's answer and on the page.
- A search by one linked contact's name counted that contact alone as the account's contacts.
- An update naming no field answered "changed: []" as if it had worked, and an industry kept
  the line breaks it was given.
- A website given without its scheme, at the length the tool allows, had "https://" put before
  it and then did not fit its column: a crash instead of a refusal.
"""

import json

import pytest

from apps.catalogue.testing import call, ok, refused
from apps.contacts.tests.factories import ContactFactory, OrganisationFactory
from apps.core.workspaces import current_workspace
from apps.datarights.personal_data import personal_data_erase, personal_data_records
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.tests.factories import GroupAccountFactory

SECRET = "Quillfeather-Holdings"


def _link(user, account_id: int, contact_id: int, role: str = "buyer"):  # type: ignore[no-untyped-def]
    return ok(
        user,
        "linkContactToGroupAccount",
        {"groupAccountId": account_id, "contactId": contact_id, "role": role},
    )


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_a_private_contact_of_an_account_is_not_counted_for_others(people, reader):
    owner = people["owner"]
    account = GroupAccountFactory(actor=owner, name="Northwind Traders")
    private = ContactFactory(actor=owner, first_name=SECRET, visibility="private")
    shared = ContactFactory(actor=owner, first_name="Shared")
    _link(owner, account.pk, private.pk)
    _link(owner, account.pk, shared.pk)

    for name, arguments in (("listGroupAccounts", {}), ("searchGroupAccounts", {"query": "Northwind"})):
        [row] = [a for a in ok(people[reader], name, arguments)["items"] if a["id"] == account.pk]
        assert row["contacts"] == 1, name
        [mine] = [a for a in ok(owner, name, arguments)["items"] if a["id"] == account.pk]
        assert mine["contacts"] == 2, name


@pytest.mark.parametrize("reader", ["member", "viewer"])
def test_a_private_organisation_contact_is_not_named_to_others(people, reader, acme_client):
    owner = people["owner"]
    organisation = OrganisationFactory(actor=owner, organisation_name=SECRET, visibility="private")
    account = ok(
        owner, "createGroupAccount", {"account": {"name": "Fabrikam", "organisationId": organisation.pk}}
    )
    assert account["organisation"]["id"] == organisation.pk

    for name in ("getGroupAccount", "examineGroupAccount"):
        answer = call(people[reader], name, {"groupAccountId": account["id"]})
        assert SECRET not in json.dumps(answer), name
    assert ok(people[reader], "getGroupAccount", {"groupAccountId": account["id"]})["organisation"] is None
    acme_client.force_login(people[reader])
    page = acme_client.get("/settings/group-accounts/")
    assert page.status_code == 200 and b"Fabrikam" in page.content and SECRET.encode() not in page.content


def test_an_archived_organisation_contact_is_no_longer_the_accounts(people):
    member = people["member"]
    organisation = OrganisationFactory(actor=member, organisation_name="Contoso Ltd")
    account = ok(
        member, "createGroupAccount", {"account": {"name": "Contoso", "organisationId": organisation.pk}}
    )
    organisation.trash(member)

    assert ok(member, "getGroupAccount", {"groupAccountId": account["id"]})["organisation"] is None


def test_a_website_without_its_scheme_at_the_limit_is_refused_not_a_crash(people):
    member = people["member"]
    long_site = "a" * 60 + "." + "b" * 60 + "." + "c" * 60 + ".example.com"  # 195 characters
    assert len(long_site) <= 200

    said = refused(member, "createGroupAccount", {"account": {"name": "Long Site Ltd", "website": long_site}})

    assert "website" in said and "200" in said
    assert not GroupAccount.objects.filter(name="Long Site Ltd").exists()
    # Just within: kept with its scheme.
    fits = "w" * 50 + ".example.com"
    made = ok(member, "createGroupAccount", {"account": {"name": "Short Site Ltd", "website": fits}})
    assert made["website"] == f"https://{fits}"


def test_an_industry_is_one_line_and_an_update_naming_nothing_is_refused(people):
    member = people["member"]
    account = GroupAccountFactory(actor=member, name="Tailspin Toys", industry="Retail")

    said = refused(member, "updateGroupAccount", {"groupAccountId": account.pk, "changes": {}})
    assert "changes" in said
    changed = ok(
        member,
        "updateGroupAccount",
        {
            "groupAccountId": account.pk,
            "changes": {"industry": " Toys\nand   games ", "description": " Line 1\nLine 2 "},
        },
    )
    assert changed["account"]["industry"] == "Toys and games"
    assert changed["account"]["description"] == "Line 1\nLine 2"


def test_the_accounts_someone_looks_after_are_in_their_data_and_stay_without_them(people, nora):
    member = people["member"]
    account = GroupAccountFactory(actor=member, name="Adventure Works", owner_email=nora.email)
    workspace = current_workspace()

    held = personal_data_records(workspace=workspace, email=nora.email)

    assert [row["id"] for row in held["groupaccounts.groupaccount"]] == [account.pk]
    personal_data_erase(workspace=workspace, email=nora.email, performed_by="admin@acme.example")
    kept = GroupAccount.objects.get(pk=account.pk)
    assert kept.deleted_at is None and kept.owner_id is None


def test_a_search_by_one_contacts_name_still_counts_all_the_accounts_contacts(people):
    member = people["member"]
    account = GroupAccountFactory(actor=member, name="Litware")
    for name in ("Yolanda", "Xavier", "Wendell"):
        _link(member, account.pk, ContactFactory(actor=member, first_name=name).pk)

    [found] = ok(people["viewer"], "searchGroupAccounts", {"query": "Yolanda"})["items"]

    assert (found["id"], found["contacts"]) == (account.pk, 3)
