"""Accounting's records through the Platform's import and export tools (apps.accounting.transfer):
the chart of accounts imported through `account_add`; invoices, bills, bank lines and bank
transactions exported, amounts as decimal text."""

import csv
import io
from datetime import date
from decimal import Decimal

from openpyxl import load_workbook

from apps.accounting.lib import ledger, statements
from apps.accounting.models import Account
from apps.accounting.services import bank, banking
from apps.accounting.tests.factories import issued, posted_bill
from apps.catalogue.testing import confirmed, ok, person_with, refused
from apps.files import api as files

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def _text(user, kind, query=""):
    return ok(user, "exportDataCsv", {"entityType": kind, "query": query})["csvText"]


def _table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]


def _validate(user, text):
    return ok(user, "validateDataImport", {"entityType": "account", "csvText": text})


def test_a_role_that_may_not_read_the_books_may_not_export_them(acme):
    person = person_with({"platform.view", "files.view", "files.edit"}, email="no-books@acme.example")

    for kind in ("account", "invoice", "bill", "bankLine", "bankTransaction"):
        assert "permission" in refused(person, "exportDataCsv", {"entityType": kind})


def test_invoices_and_bills_are_exported_with_amounts_as_decimal_text(people):
    invoice = issued(people["owner"], customer="=Invoicemarker Ltd", email="ap@invoicemarker.example")
    posted_bill(people["owner"], supplier="Billmarker Supplies", reference="CR-1", net="-35.50")

    (row,) = _table(_text(people["viewer"], "invoice", "Invoicemarker"))
    (bill,) = _table(_text(people["viewer"], "bill", "Billmarker"))

    assert (row["number"], row["kind"], row["status"]) == (invoice.number, "invoice", "approved")
    assert (row["net"], row["tax"], row["total"], row["amountDue"], row["currency"]) == (
        "100.00",
        "20.00",
        "120.00",
        "120.00",
        "GBP",
    )
    assert row["customerName"] == "'=Invoicemarker Ltd" and row["issueDate"] == "2026-03-02"
    # A supplier's credit: a negative amount, written as the number it is (no apostrophe).
    assert (bill["supplierName"], bill["total"], bill["status"]) == (
        "Billmarker Supplies",
        "-35.50",
        "posted",
    )


def test_bank_lines_export_as_paid_in_and_out_which_the_statement_import_reads_back(people):
    ledger.books()
    account = bank.bank_account_create(actor=people["owner"], name="Bankmarker current", currency="GBP")
    for day, amount, description in (
        (10, "-12.50", "Bankmarker stamps"),
        (11, "250.00", "Bankmarker refund"),
    ):
        bank.financial_create(
            actor=people["owner"],
            bank=account,
            fields={"date": date(2026, 3, day), "amount": Decimal(amount), "description": description},
        )

    text = _text(people["member"], "bankLine", "Bankmarker")

    rows = _table(text)
    assert [(row["paidIn"], row["paidOut"], row["date"]) for row in rows] == [
        ("", "12.50", "2026-03-10"),
        ("250.00", "", "2026-03-11"),
    ]
    mapping = statements.csv_mapping(
        {"date": "date", "paidIn": "paidIn", "paidOut": "paidOut", "description": "description"}
    )
    read = statements.parse("csv", text, mapping)
    assert [(line.amount, line.description) for line in read.lines] == [
        (Decimal("-12.50"), "Bankmarker stamps"),
        (Decimal("250.00"), "Bankmarker refund"),
    ]


def test_bank_transactions_are_exported(people):
    ledger.books()
    account = bank.bank_account_create(actor=people["owner"], name="Spendmarker cash", currency="GBP")
    banking.transaction_record(
        actor=people["owner"],
        bank=account,
        direction="spend",
        day=date(2026, 3, 3),
        lines=[banking.LineData("6000", Decimal("7.50"), "NONE", "Stamps")],
        contact_name="Spendmarker Post Office",
    )

    (row,) = _table(_text(people["viewer"], "bankTransaction", "Spendmarker"))

    assert (row["kind"], row["bankAccount"], row["paidIn"], row["paidOut"]) == (
        "spend",
        "Spendmarker cash",
        "",
        "7.50",
    )


def test_the_chart_is_exported(people):
    ledger.books()
    sales = Account.objects.get(role=Account.Role.SALES)

    rows = _table(_text(people["viewer"], "account", sales.code))

    assert {"code": sales.code, "name": sales.name, "type": "income", "role": "sales"}.items() <= next(
        row for row in rows if row["code"] == sales.code
    ).items()


def test_accounts_import_checked_by_row_and_column_then_added_once(people):
    ledger.books()
    held = Account.objects.get(role=Account.Role.SALES)
    before = Account.objects.count()
    text = (
        "Code,Name,Type\n"
        "7710,Importmarker software,Expense\n"  # 2
        "!!,Importmarker bad code,expense\n"  # 3: code
        "7711,,asset\n"  # 4: name
        "7712,Importmarker kind,spending\n"  # 5: type
        "7710,Importmarker again,expense\n"  # 6: repeats row 2
        f"{held.code.lower()},Importmarker held,income\n"  # 7: a code we have
    )

    plan = _validate(people["admin"], text)

    assert (plan["rows"], plan["toImport"], plan["invalidRows"], plan["duplicateRows"]) == (6, 1, 3, 2)
    assert {(p["row"], p["column"]) for p in plan["problems"]} == {(3, "code"), (4, "name"), (5, "type")}
    assert [(d["row"], d["key"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (6, "code:7710", 2, None),
        (7, f"code:{held.code}", None, held.pk),
    ]
    assert Account.objects.count() == before

    token = plan["token"]
    first = ok(people["admin"], "commitDataImport", {"token": token, "skipInvalidRows": True}, **CONFIRM)
    again = ok(people["admin"], "commitDataImport", {"token": token, "skipInvalidRows": True}, **CONFIRM)

    made = Account.objects.get(code="7710")
    assert (made.name, made.type) == ("Importmarker software", "expense")
    assert first["createdIds"] == again["createdIds"] == [made.pk] and again["alreadyCommitted"]
    assert Account.objects.count() == before + 1


def test_only_an_administrator_of_the_books_imports_accounts(people):
    said = refused(
        people["member"],
        "validateDataImport",
        {"entityType": "account", "csvText": "code,name,type\n7720,X,asset\n"},
    )

    assert "permission" in said and not Account.objects.filter(code="7720").exists()


def test_an_xlsx_export_of_invoices_holds_amounts_as_decimal_text(people):
    issued(people["owner"], customer="Xlsxmarker Ltd")

    answer = ok(
        people["member"], "exportDataCsv", {"entityType": "invoice", "format": "xlsx", "query": "Xlsxmarker"}
    )

    stored = files.file(actor=people["member"], file_id=answer["file"]["fileId"])
    sheet = load_workbook(io.BytesIO(files.file_bytes(stored))).worksheets[0]
    header, row = ([cell.value for cell in line] for line in sheet.iter_rows())
    assert (row[header.index("total")], row[header.index("issueDate")]) == ("120.00", "2026-03-02")
