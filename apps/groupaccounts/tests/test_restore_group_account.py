"""restoreGroupAccount (a Platform tool, in this area) through call_tool: a normal call, bad input
and a refusal."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.groupaccounts.models import GroupAccount, GroupAccountContact
from apps.groupaccounts.tests.factories import GroupAccountFactory
from apps.groupaccounts.tests.samples import with_contact


def _delete(person, account):
    ok(
        person,
        "deleteGroupAccount",
        {"groupAccountId": account.pk},
        capabilities={"elicitation": {}},
        elicit=confirmed,
    )


def test_restore_brings_an_archived_account_back_with_its_contacts(people):
    admin = people["admin"]
    account, contact = with_contact(admin)
    _delete(admin, account)

    answer = ok(admin, "restoreGroupAccount", {"groupAccountId": account.pk})

    account.refresh_from_db()
    assert answer["id"] == account.pk and account.deleted_at is None
    assert GroupAccountContact.objects.filter(account=account, contact=contact).exists()
    assert ok(people["viewer"], "getGroupAccount", {"groupAccountId": account.pk})["name"] == account.name


def test_members_may_not_restore(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "restoreGroupAccount", {"groupAccountId": 1})


def test_restore_refuses_a_live_account_a_taken_name_and_bad_ids(people):
    admin = people["admin"]
    live = GroupAccountFactory(actor=admin, name="Still here")
    gone = GroupAccountFactory(actor=admin, name="Polar")
    _delete(admin, gone)
    GroupAccountFactory(actor=admin, name="polar")

    assert "is not archived" in refused(admin, "restoreGroupAccount", {"groupAccountId": live.pk})
    assert "already" in refused(admin, "restoreGroupAccount", {"groupAccountId": gone.pk})
    assert GroupAccount.objects.get(pk=gone.pk).deleted_at is not None
    assert "not found" in refused(admin, "restoreGroupAccount", {"groupAccountId": 10**12})
    assert "`groupAccountId`" in refused(admin, "restoreGroupAccount", {"groupAccountId": "Polar"})
