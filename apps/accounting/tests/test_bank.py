"""Bank accounts and bank lines through the tools: statements of every format imported (and not
twice), lines entered by hand, changed and deleted, the summary; bad input and refusals."""

from pathlib import Path

import pytest

from apps.accounting.models import Financial, JournalEntry
from apps.accounting.services import bank
from apps.accounting.tests.factories import bank_line
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without
from apps.core.errors import AppError

pytestmark = pytest.mark.django_db
STATEMENTS = Path(__file__).parent / "statements"
CSV_MAPPING = {
    "date": "Date",
    "paidIn": "Paid in",
    "paidOut": "Paid out",
    "description": "Details",
    "reference": "Reference",
    "dateFormat": "%d/%m/%Y",
    "decimalComma": "yes",
}
FILES = {
    "camt053": ("camt053.xml", None),
    "mt940": ("mt940.sta", None),
    "ofx": ("statement.ofx", None),
    "csv": ("statement.csv", CSV_MAPPING),
}


def statement(format, **extra):
    name, mapping = FILES[format]
    given = {"format": format, "content": (STATEMENTS / name).read_text(), **extra}
    if mapping:
        given["mapping"] = mapping
    return {"statement": given}


@pytest.mark.parametrize(
    ("name", "permission", "arguments"),
    [
        ("listBankAccounts", "accounting.view", {}),
        ("listFinancials", "accounting.view", {}),
        ("getFinancialsSummary", "accounting.view", {}),
        ("createFinancial", "accounting.edit", {"financial": {"date": "2026-03-01", "amount": "5"}}),
        ("manageFinancial", "accounting.edit", {"financialId": 1, "action": "delete"}),
    ],
)
def test_a_role_without_the_permission_cannot_call_it(acme, name, permission, arguments):
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


@pytest.mark.parametrize("format", sorted(FILES))
def test_a_statement_is_imported_once(people, format):
    entries = JournalEntry.objects.count()
    first = ok(people["member"], "createFinancial", statement(format))

    assert first["created"] == 2 and first["skipped"] == 0
    lines = sorted(first["lines"], key=lambda line: line["date"])
    assert [(line["date"], line["amount"], line["currency"]) for line in lines] == [
        ("2026-03-10", "120.00", "GBP"),
        ("2026-03-14", "-35.50", "GBP"),
    ]
    assert "INV-0001" in f"{lines[0]['description']} {lines[0]['reference']}"
    assert {line["source"] for line in lines} == {format}
    again = ok(people["member"], "createFinancial", statement(format))
    assert again["created"] == 0 and again["skipped"] == 2
    assert Financial.objects.filter(bank_account_id=lines[0]["bankAccountId"]).count() == 2
    # Importing posts nothing: matching does.
    assert JournalEntry.objects.count() == entries


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"statement": {"format": "camt053", "content": "<Document><nope/>"}}, "could not be read"),
        ({"statement": {"format": "mt940", "content": "hello"}}, "could not be read"),
        ({"statement": {"format": "ofx", "content": "OFXHEADER:100\n<OFX></OFX>"}}, "could not be read"),
        (
            {
                "statement": {
                    "format": "csv",
                    "content": "Date,Amount\n2026-03-01,abc\n",
                    "mapping": {"date": "Date", "amount": "Amount"},
                }
            },
            "'abc' is not an amount",
        ),
        (
            {
                "statement": {
                    "format": "csv",
                    "content": "Date,Amount\n2026-03-01,4\n",
                    "mapping": {"date": "Day", "amount": "Amount"},
                }
            },
            "no column 'Day'",
        ),
        ({"statement": {"format": "csv", "content": "Date,Amount\n", "mapping": {"colour": "x"}}}, "colour"),
        ({"financial": {"date": "2026-03-01", "amount": "0"}}, "must not be zero"),
        (
            {
                "financial": {"date": "2026-03-01", "amount": "5"},
                "statement": {"format": "ofx", "content": "x"},
            },
            "either",
        ),
        ({"bankAccountId": 999999, "financial": {"date": "2026-03-01", "amount": "5"}}, "listBankAccounts"),
    ],
)
def test_bad_input_is_named_and_adds_nothing(people, arguments, problem):
    before = Financial.objects.count()
    assert problem in refused(people["member"], "createFinancial", arguments)
    assert Financial.objects.count() == before


def test_a_statement_for_another_account_or_currency_is_refused(people):
    euro = bank.bank_account_create(actor=people["owner"], name="Euro account", currency="EUR")
    other = bank.bank_account_create(
        actor=people["owner"], name="Other", currency="GBP", iban="GB29 NWBK 6016 1331 9268 19"
    )

    assert "in GBP, the bank account in EUR" in refused(
        people["member"], "createFinancial", {"bankAccountId": euro.pk, **statement("camt053")}
    )
    assert "not Other" in refused(
        people["member"], "createFinancial", {"bankAccountId": other.pk, **statement("camt053")}
    )
    with pytest.raises(AppError, match="not a valid IBAN"):
        bank.bank_account_create(
            actor=people["owner"], name="Bad", currency="GBP", iban="GB00NWBK60161331926819"
        )
    listed = ok(people["viewer"], "listBankAccounts")["accounts"]
    shown = {a["id"]: (a["name"], a["currency"], a["iban"]) for a in listed}
    assert listed[0]["ledgerAccount"] == "1200"
    assert shown[euro.pk] == ("Euro account", "EUR", "")
    assert shown[other.pk] == ("Other", "GBP", "GB29**************6819")
    codes = [a["ledgerAccount"] for a in listed]
    assert len(set(codes)) == len(codes) and all("1200" <= code <= "1299" for code in codes)


def test_a_line_by_hand_is_changed_deleted_and_restored(people):
    made = ok(
        people["member"],
        "createFinancial",
        {
            "financial": {
                "date": "2026-03-03",
                "amount": "-12.35",
                "description": "Coffee  beans",
                "counterparty": "Cafe",
            }
        },
    )["lines"][0]
    assert made["amount"] == "-12.35" and made["description"] == "Coffee beans" and made["source"] == "manual"

    changed = ok(
        people["member"],
        "manageFinancial",
        {"financialId": made["id"], "action": "update", "financial": {"reference": "R-1"}},
    )
    assert changed["changed"] == ["reference"] and changed["financial"]["reference"] == "R-1"
    assert "description" in refused(
        people["member"],
        "manageFinancial",
        {"financialId": made["id"], "action": "update", "financial": {"description": "x" * 501}},
    )
    keeper = person_without("accounting.delete", email="no-delete@acme.example")
    denied = refused(keeper, "manageFinancial", {"financialId": made["id"], "action": "delete"})
    assert "permission" in denied.lower()
    ok(people["owner"], "manageFinancial", {"financialId": made["id"], "action": "delete"})
    assert ok(people["viewer"], "listFinancials", {"query": "coffee"})["total"] == 0
    ok(people["owner"], "manageFinancial", {"financialId": made["id"], "action": "restore"})
    assert ok(people["viewer"], "listFinancials", {"query": "coffee"})["total"] == 1


def test_list_and_summary_of_bank_lines(people):
    ok(people["member"], "createFinancial", statement("camt053"))
    bank_line(people["owner"], "-10.00", description="Bank fee")

    assert ok(people["viewer"], "listFinancials", {"query": "northwind"})["total"] == 1
    first = {"bankAccountId": ok(people["viewer"], "listBankAccounts")["accounts"][0]["id"]}
    assert ok(people["viewer"], "listFinancials", {**first, "since": "2026-03-12"})["total"] == 1
    assert ok(people["viewer"], "listFinancials", {**first, "matched": True})["total"] == 0
    assert ok(people["viewer"], "listFinancials", {**first, "matched": False})["total"] == 3
    figures = ok(people["viewer"], "getFinancialsSummary", first)["accounts"][0]
    assert figures["lines"] == 3 and figures["unmatched"] == 3
    assert (figures["moneyIn"], figures["moneyOut"], figures["balance"]) == ("120.00", "-45.50", "74.50")
    assert figures["ledgerBalance"] == "0.00" and figures["oldestUnmatched"] == "2026-03-10"
    assert "until" in refused(people["viewer"], "getFinancialsSummary", {"until": "March"})


def test_the_page_shows_bank_lines_and_an_admin_adds_a_bank_account(people, acme_client):
    bank_line(people["owner"], "-64.20", description="Printer toner")
    acme_client.force_login(people["viewer"])
    page = acme_client.get("/settings/accounting/").content.decode()
    assert "Printer toner" in page and "-64.20 GBP" in page and "Add bank account" not in page
    assert (
        acme_client.post("/settings/accounting/bank-accounts/", {"name": "X", "currency": "GBP"}).status_code
        == 403
    )

    acme_client.force_login(people["owner"])
    bad = acme_client.post(
        "/settings/accounting/bank-accounts/",
        {"name": "Savings", "currency": "GBP", "iban": "GB00 1234"},
        follow=True,
    )
    assert "not a valid IBAN" in bad.content.decode()
    acme_client.post(
        "/settings/accounting/bank-accounts/",
        {"name": "Savings", "currency": "EUR", "iban": "DE89 3704 0044 0532 0130 00"},
    )
    page = acme_client.get("/settings/accounting/").content.decode()
    assert "Savings (EUR)" in page and "DE89370400440532013000" in page and "Add bank account" in page
