"""The chart of accounts and the tax types, changed within the rules: codes unique, the system's
accounts kept, an account with postings archived (not deleted), a tax rate in use never changed
in place (a new tax type instead)."""

from decimal import Decimal

import pytest

from apps.accounting.models import Account, TaxType
from apps.accounting.tests.factories import draft, issued
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.accounting.tests.samples import manual_journal
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "permission", "arguments"),
    [
        ("listAccounts", "accounting.view", {}),
        ("manageAccount", "accounting.admin", {"action": "archive", "code": "6100"}),
        ("manageTaxType", "accounting.admin", {"action": "archive", "code": "UK-RED"}),
    ],
)
def test_a_role_without_the_permission_cannot_call_it(acme, name, permission, arguments):
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


def test_the_chart_is_listed_with_what_the_ledger_uses_itself(people):
    listed = ok(people["viewer"], "listAccounts")["items"]
    by_code = {item["code"]: item for item in listed}
    assert by_code["1100"]["role"] == "receivable" and by_code["6100"]["role"] == ""
    expenses = ok(people["viewer"], "listAccounts", {"type": "expense", "query": "rent"})["items"]
    assert [item["code"] for item in expenses] == ["6100"]


def test_accounts_are_added_renamed_archived_restored_and_deleted_within_the_rules(people):
    owner = people["owner"]

    added = ok(
        owner, "manageAccount", {"action": "add", "code": "6400", "name": "Marketing", "type": "expense"}
    )
    assert added["account"] == {
        "code": "6400",
        "name": "Marketing",
        "type": "expense",
        "role": "",
        "archived": False,
    }
    taken = refused(
        owner, "manageAccount", {"action": "add", "code": "6100", "name": "Again", "type": "expense"}
    )
    assert "code 6100 is taken (Rent)" in taken
    assert "type" in refused(owner, "manageAccount", {"action": "add", "code": "6500", "name": "No type"})
    assert "letters, digits" in refused(
        owner, "manageAccount", {"action": "add", "code": "bad code!", "name": "X", "type": "expense"}
    )

    renamed = ok(
        owner, "manageAccount", {"action": "rename", "code": "6200", "name": "Travel and subsistence"}
    )
    assert renamed["account"]["name"] == "Travel and subsistence"
    # The system's accounts are renamed, never archived or deleted.
    ok(owner, "manageAccount", {"action": "rename", "code": "1100", "name": "Trade debtors"})
    for action in ("archive", "delete"):
        message = refused(owner, "manageAccount", {"action": action, "code": "1100"})
        assert "is the books' accounts receivable account" in message
    assert not Account.objects.get(code="1100").archived

    # Used (posted, or on a draft's line): archived, not deleted; no new line takes it.
    manual_journal(owner)
    assert "archived, not deleted" in refused(owner, "manageAccount", {"action": "delete", "code": "6000"})
    draft(owner, lines=[("Hosting", "10.00", "UK-STD")])
    assert ok(owner, "manageAccount", {"action": "archive", "code": "6000"})["account"]["archived"] is True
    line = {"description": "x", "unitPrice": "1", "taxType": "UK-STD", "account": "6000"}
    assert "there is no account 6000" in refused(
        owner, "createInvoice", {"invoice": {"customerName": "Initech"}, "lines": [line]}
    )
    assert "6000" not in {item["code"] for item in ok(owner, "listAccounts")["items"]}
    assert "6000" in {item["code"] for item in ok(owner, "listAccounts", {"includeArchived": True})["items"]}
    assert ok(owner, "manageAccount", {"action": "restore", "code": "6000"})["account"]["archived"] is False

    # Never used: deleted.
    assert ok(owner, "manageAccount", {"action": "delete", "code": "6400"})["account"] is None
    assert not Account.objects.filter(code="6400").exists()
    assert "listAccounts" in refused(
        owner, "manageAccount", {"action": "rename", "code": "6400", "name": "X"}
    )


def test_a_tax_rate_in_use_is_not_changed_in_place_but_replaced(people):
    owner = people["owner"]

    added = ok(
        owner,
        "manageTaxType",
        {"action": "add", "code": "uk-135", "taxType": {"name": "Reduced 13.5%", "rate": "13.5"}},
    )
    assert (added["taxType"]["code"], added["taxType"]["kind"]) == ("UK-135", "standard")
    assert Decimal(added["taxType"]["rate"]) == Decimal("13.5")
    # Unused: its rate may still be corrected.
    fixed = ok(owner, "manageTaxType", {"action": "update", "code": "UK-135", "taxType": {"rate": "12.5"}})
    assert fixed["changed"] == ["rate"] and Decimal(fixed["taxType"]["rate"]) == Decimal("12.5")

    issued(owner, lines=[("Hotel night", "100.00", "UK-RED")])
    message = refused(
        owner, "manageTaxType", {"action": "update", "code": "UK-RED", "taxType": {"rate": "6"}}
    )
    assert "TAX_TYPE_IN_USE" in message or "stay as they were" in message
    assert TaxType.objects.get(code="UK-RED").rate == Decimal(5)
    # A round rate is said as written ("20 %", not a decimal's "2E+1 %").
    issued(owner, lines=[("Consulting", "100.00", "UK-STD")])
    standard = refused(
        owner, "manageTaxType", {"action": "update", "code": "UK-STD", "taxType": {"rate": "21"}}
    )
    assert "at 20 %" in standard
    renamed = ok(
        owner, "manageTaxType", {"action": "update", "code": "UK-RED", "taxType": {"reportBox": "1a"}}
    )
    assert renamed["changed"] == ["report_box"]

    ok(
        owner,
        "manageTaxType",
        {"action": "add", "code": "UK-RED6", "taxType": {"name": "Reduced 6%", "rate": "6"}},
    )
    assert ok(owner, "manageTaxType", {"action": "archive", "code": "UK-RED"})["taxType"]["code"] == "UK-RED"
    assert "UK-RED" not in {item["code"] for item in ok(owner, "listTaxTypes")["items"]}
    assert "there is no tax type UK-RED" in refused(
        owner,
        "createInvoice",
        {
            "invoice": {"customerName": "Initech"},
            "lines": [{"description": "x", "unitPrice": "1", "taxType": "UK-RED"}],
        },
    )
    # What was posted keeps its rate.
    assert issued(owner, lines=[("Night", "100.00", "UK-RED6")]).tax == Decimal("6.00")
    assert ok(owner, "manageTaxType", {"action": "restore", "code": "UK-RED"})["changed"] == ["archived"]


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"action": "add", "code": "UK-STD", "taxType": {"name": "Again", "rate": "20"}}, "is taken"),
        ({"action": "add", "code": "X1", "taxType": {"name": "No rate"}}, "needs a name and a rate"),
        (
            {"action": "add", "code": "X2", "taxType": {"name": "Too much", "rate": "120"}},
            "between 0 and 100",
        ),
        (
            {"action": "add", "code": "X3", "taxType": {"name": "Exempt", "rate": "0", "kind": "exempt"}},
            "exemptionReason",
        ),
        ({"action": "update", "code": "UK-STD"}, "say what to change"),
        ({"action": "update", "code": "UK-STD", "taxType": {"rate": None}}, "rate"),
        ({"action": "update", "code": "NOPE", "taxType": {"name": "X"}}, "listTaxTypes"),
    ],
)
def test_a_tax_type_that_does_not_hold_is_refused(people, arguments, expected):
    before = list(TaxType.objects.values_list("code", "rate", "name"))
    assert expected in refused(people["owner"], "manageTaxType", arguments)
    assert list(TaxType.objects.values_list("code", "rate", "name")) == before


def test_an_archived_account_keeps_its_postings_in_the_trial_balance(people):
    owner = people["owner"]
    manual_journal(owner)
    ok(owner, "manageAccount", {"action": "archive", "code": "2300"})
    rows = {row["code"]: row for row in ok(owner, "getAccountingSummary")["trialBalance"]}
    assert rows["2300"]["credit"] == "1200.00" and rows["6000"]["debit"] == "1200.00"
