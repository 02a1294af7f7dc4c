"""The reports against a month worked by hand (GBP books, UK VAT, March 2026):

- INV-0001 to Northwind, 2 March: 1,000.00 standard rate (VAT 200.00), 1,200.00; 600.00 paid on 20 March.
- INV-0002 to Contoso, 10 March: 500.00 standard (VAT 100.00) and 200.00 zero-rated, 800.00; a credit
  note of 100.00 + 20.00 VAT against it on 15 March.
- INV-0003 to Initech, 1 March: 50.00 standard (VAT 10.00), voided on 25 March.
- A bill from Office Supplies, 5 March: 300.00 standard (VAT 60.00), 360.00, due that day.
- A bill from Cloud Services abroad, 12 March: 400.00 under the reverse charge (no VAT on the bill).

By hand: sales 1,000 + 500 + 200 - 100 + 50 - 50 = 1,600.00; cost of sales 300 + 400 = 700.00; profit
900.00. Receivable 1,200 + 800 - 120 - 600 (+60 - 60) = 1,280.00, bank 600.00: assets 1,880.00.
Payable 360 + 400 = 760.00, VAT 280 - 60 = 220.00: liabilities 980.00, and the year's earnings 900.00.
VAT: box 1 = 280 output + 80 reverse charge = 360.00; box 4 = 60 + 80 = 140.00; box 5 = 220.00 to
pay; box 6 = 1,400 standard + 200 zero + 400 reverse-charge services = 2,000; box 7 = 700.
"""

import io
from datetime import date
from decimal import Decimal

import pytest
from pypdf import PdfReader

from apps.accounting.lib import ledger
from apps.accounting.lib.exports import Table, csv_bytes
from apps.accounting.models import Account
from apps.accounting.selectors import reports
from apps.accounting.services import sales
from apps.accounting.tests.factories import draft, issued, posted_bill
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_with, person_without

pytestmark = pytest.mark.django_db
D = Decimal
MARCH = {"fromDate": "2026-03-01", "toDate": "2026-03-31"}


@pytest.fixture
def month(people):
    owner = people["owner"]
    northwind = issued(
        owner, customer="Northwind", issue_date=date(2026, 3, 2), lines=[("Build", "1000", "UK-STD")]
    )
    contoso = issued(
        owner,
        customer="Contoso",
        issue_date=date(2026, 3, 10),
        lines=[("Design", "500", "UK-STD"), ("Books", "200", "UK-ZERO")],
    )
    initech = issued(owner, customer="Initech", issue_date=date(2026, 3, 1), lines=[("Typo", "50", "UK-STD")])
    posted_bill(
        owner,
        supplier="Office Supplies",
        reference="OS-1",
        net="300.00",
        tax_code="UK-STD",
        day=date(2026, 3, 5),
    )
    posted_bill(
        owner,
        supplier="Cloud Services",
        reference="CS-1",
        net="400.00",
        tax_code="UK-RC",
        day=date(2026, 3, 12),
    )
    sales.record_payment(actor=owner, document=northwind, amount=D("600"), day=date(2026, 3, 20))
    note = sales.credit_note_for(actor=owner, invoice=contoso)
    sales.document_update(
        actor=owner,
        document=note,
        fields={"issue_date": date(2026, 3, 15)},
        lines=[sales.LineData("Design, reduced", D("100"), "UK-STD")],
    )
    sales.document_approve(actor=owner, document=note)
    sales.document_void(actor=owner, document=initech, day=date(2026, 3, 25))
    return {"northwind": northwind, "contoso": contoso, "note": note, "initech": initech}


def figures(section):
    return {row.code: row.amount for row in section.rows}


def test_profit_and_loss_of_the_month_is_the_hand_worked_one(month):
    found = reports.profit_and_loss(start=date(2026, 3, 1), end=date(2026, 3, 31))

    income, costs, expenses = found.sections
    assert figures(income) == {"4000": D("1600.00")}
    assert figures(costs) == {"5000": D("700.00")}
    assert expenses.rows == []
    assert (found.gross_profit, found.net_profit) == (D("900.00"), D("900.00"))


def test_profit_and_loss_compares_with_the_period_before(month, people):
    draft_before = draft(
        people["owner"], customer="Early", issue_date=date(2026, 2, 20), lines=[("Old", "70", "UK-STD")]
    )
    sales.document_approve(actor=people["owner"], document=draft_before)

    found = reports.profit_and_loss(start=date(2026, 3, 1), end=date(2026, 3, 31), compare="period")

    assert found.compared == (date(2026, 1, 29), date(2026, 2, 28))
    assert found.sections[0].rows[0].previous == D("70.00")
    assert found.previous_net_profit == D("70.00") and found.net_profit == D("900.00")
    assert reports.previous_period(date(2024, 2, 29), date(2024, 3, 31), "year") == (
        date(2023, 2, 28),
        date(2023, 3, 31),
    )


def test_the_balance_sheet_balances_after_the_month(month):
    found = reports.balance_sheet(as_of=date(2026, 3, 31))

    assert figures(found.assets) == {"1100": D("1280.00"), "1200": D("600.00")}
    assert figures(found.liabilities) == {"2100": D("760.00"), "2200": D("220.00")}
    assert [(row.name, row.amount) for row in found.equity.rows] == [("Current year earnings", D("900.00"))]
    assert found.assets.total == found.liabilities_and_equity == D("1880.00")
    assert found.balanced


def test_earlier_years_profit_is_retained_earnings_and_it_still_balances(month):
    found = reports.balance_sheet(as_of=date(2027, 1, 15))

    assert figures(found.equity) == {"3100": D("900.00")}
    assert found.balanced and found.assets.total == D("1880.00")


def test_aged_receivables_total_the_control_account(month, people):
    found = reports.aged(actor=people["viewer"], side="receivables", as_of=date(2026, 3, 31))

    by_name = {contact.name: contact for contact in found.contacts}
    assert set(by_name) == {"Northwind", "Contoso"}  # Initech's invoice is void: nothing due
    assert by_name["Northwind"].buckets["current"] == D("600.00")
    # The credit note settled 120.00 of Contoso's invoice: shown on the invoice, its own row gone.
    assert [(row.number, row.amount) for row in by_name["Contoso"].documents] == [("INV-0002", D("680.00"))]
    assert found.total == found.control_balance == D("1280.00")
    assert found.control_balance == ledger.balance_of(
        ledger.account(Account.Role.RECEIVABLE), as_of=date(2026, 3, 31)
    )
    month["contoso"].refresh_from_db()
    assert month["contoso"].amount_due == D("680.00")


def test_ageing_moves_with_the_date_and_before_the_payment(month, people):
    later = reports.aged(actor=people["viewer"], side="receivables", as_of=date(2026, 5, 15))
    earlier = reports.aged(actor=people["viewer"], side="receivables", as_of=date(2026, 3, 12))

    # INV-0001 was due 1 April (30 days' terms): 44 days late on 15 May; INV-0002 due 9 April, 36.
    assert later.buckets["31-60"] == D("1280.00") and later.total == later.control_balance
    # On 12 March nothing was paid or credited yet, and the void invoice was still owed.
    assert earlier.total == earlier.control_balance == D("1200.00") + D("800.00") + D("60.00")


def test_a_manual_journal_on_the_control_account_is_a_row_of_its_own(month, people):
    ledger.post(
        journal="GEN",
        day=date(2026, 3, 30),
        currency="GBP",
        actor=people["owner"],
        memo="Opening balance brought forward",
        source="manual",
        legs=[
            ledger.Leg(ledger.account(Account.Role.RECEIVABLE), D("45.00")),
            ledger.Leg(ledger.account(Account.Role.EQUITY), D("-45.00")),
        ],
    )

    found = reports.aged(actor=people["viewer"], side="receivables", as_of=date(2026, 3, 31))

    assert found.contacts[-1].name == "Not tied to a document" and found.contacts[-1].total == D("45.00")
    assert found.total == found.control_balance == D("1325.00")
    assert reports.balance_sheet(as_of=date(2026, 3, 31)).balanced


def test_aged_payables_total_the_control_account(month, people):
    found = reports.aged(actor=people["viewer"], side="payables", as_of=date(2026, 3, 31))

    assert {contact.name: contact.buckets["1-30"] for contact in found.contacts} == {
        "Cloud Services": D("400.00"),
        "Office Supplies": D("360.00"),
    }
    assert found.total == found.control_balance == D("760.00")


def test_ageing_follows_credit_applied_elsewhere_refunds_and_bills_paid_without_a_bank_line(month, people):
    from apps.accounting.services import payments

    owner = people["owner"]
    # Northwind's invoice is paid in full; a credit note of 120.00 against it is left over: 60.00
    # is applied to Northwind's next invoice, 24.00 refunded, 36.00 stays as credit.
    sales.record_payment(actor=owner, document=month["northwind"], amount=D("600"), day=date(2026, 3, 21))
    note = sales.credit_note_for(actor=owner, invoice=month["northwind"])
    sales.document_update(
        actor=owner,
        document=note,
        fields={"issue_date": date(2026, 3, 22)},
        lines=[sales.LineData("Goodwill", D("100"), "UK-STD")],
    )
    sales.document_approve(actor=owner, document=note)
    later = issued(
        owner, customer="Northwind", issue_date=date(2026, 3, 23), lines=[("Support", "250", "UK-STD")]
    )
    payments.allocate(actor=owner, note=note, invoice=later, amount=D("60"), day=date(2026, 3, 24))
    payments.refund(actor=owner, note=note, amount=D("24"), day=date(2026, 3, 26))
    bill = posted_bill(
        owner, supplier="Paper Co", reference="PC-9", net="80.00", tax_code="NONE", day=date(2026, 3, 6)
    )
    payments.pay_bill(actor=owner, bill=bill, amount=D("80"), day=date(2026, 3, 27))

    owed = reports.aged(actor=people["viewer"], side="receivables", as_of=date(2026, 3, 31))
    owing = reports.aged(actor=people["viewer"], side="payables", as_of=date(2026, 3, 31))

    rows = {row.number: row.amount for contact in owed.contacts for row in contact.documents}
    later.refresh_from_db()
    note.refresh_from_db()
    assert rows[later.number] == later.amount_due == D("240.00")
    assert rows[note.number] == D("-36.00")
    assert month["northwind"].number not in rows and "" not in rows
    assert owed.total == owed.control_balance
    # The bill paid without a bank line is gone from the payables, with no row of no document.
    assert {contact.name for contact in owing.contacts} == {"Cloud Services", "Office Supplies"}
    assert owing.total == owing.control_balance == D("760.00")


def test_the_vat_return_of_the_month(month):
    found = reports.vat(start=date(2026, 3, 1), end=date(2026, 3, 31))

    assert found.boxes == {
        1: D("360.00"),
        2: D("0.00"),
        3: D("360.00"),
        4: D("140.00"),
        5: D("220.00"),
        6: D("2000"),
        7: D("700"),
        8: D("0"),
        9: D("0"),
    }
    assert found.payable is True
    reverse = next(row for row in found.rows if row.tax_code == "UK-RC")
    assert (reverse.side, reverse.net, reverse.reverse_charge_tax) == ("input", D("400.00"), D("80.00"))


def test_a_refund_quarter_says_so_and_pence_are_left_out_of_boxes_6_to_9(people):
    posted_bill(
        people["owner"],
        supplier="Big Kit",
        reference="K-1",
        net="1000.99",
        tax_code="UK-STD",
        day=date(2026, 4, 2),
    )

    found = reports.vat(start=date(2026, 4, 1), end=date(2026, 6, 30))

    assert (found.boxes[4], found.boxes[5], found.payable) == (D("200.20"), D("200.20"), False)
    assert found.boxes[7] == D("1000")


def test_the_general_ledger_shows_the_lines_with_their_running_balance(month):
    bank = ledger.account(Account.Role.BANK)
    receivable = ledger.account(Account.Role.RECEIVABLE)

    lines = list(reports.ledger_lines(account=receivable, start=date(2026, 3, 10), end=date(2026, 3, 31)))
    opening = reports.opening_balances(start=date(2026, 3, 10), accounts={receivable.pk})

    assert opening[receivable.pk] == D("1260.00")  # INV-0003 and INV-0001, before the 10th
    running = [opening[receivable.pk] + line.running for line in lines]
    assert running[-1] == D("1280.00")
    assert [line.entry.source.split(":")[0] for line in lines] == [
        "invoice",
        "credit_note",
        "payment",
        "invoice",
    ]
    assert len(list(reports.ledger_lines(account=bank, start=date(2026, 3, 1), end=date(2026, 3, 31)))) == 1


# --- the tools -------------------------------------------------------------------------------------


def test_the_tools_answer_the_month_in_minor_units(month, people):
    viewer = people["viewer"]

    pl = ok(viewer, "getProfitAndLoss", {**MARCH, "compareWith": "year"})
    sheet = ok(viewer, "getBalanceSheet", {"asOf": "2026-03-31"})
    aged = ok(viewer, "getAgedBalances", {"side": "receivables", "asOf": "2026-03-31"})
    vat = ok(viewer, "getVatReturn", MARCH)
    summary = ok(viewer, "getAccountingSummary", {"asOf": "2026-03-04"})

    assert (pl["netProfit"], pl["previousNetProfit"], pl["comparedFrom"]) == ("900.00", "0.00", "2025-03-01")
    assert (
        sheet["balanced"] is True and sheet["assets"]["total"] == sheet["liabilitiesAndEquity"] == "1880.00"
    )
    assert aged["totals"]["total"] == aged["controlBalance"] == "1280.00" and aged["totalContacts"] == 2
    assert {box["box"]: box["amount"] for box in vat["boxes"]}[1] == "360.00"
    assert {box["mtdField"]: box["amount"] for box in vat["boxes"]}["totalValueSalesExVAT"] == "2000"
    assert summary["receivable"] == "1260.00" and summary["payable"] == "0.00"


def test_account_transactions_are_paged_and_name_their_documents(month, people):
    first = ok(people["viewer"], "getAccountTransactions", {**MARCH, "account": "1100", "limit": 2})
    second = ok(people["viewer"], "getAccountTransactions", {**MARCH, "account": "1100", "offset": 2})

    assert first["total"] == 6 and first["nextOffset"] == 2 and first["openingBalance"] == "0.00"
    assert [item["document"] for item in first["items"]] == ["INV-0003", "INV-0001"]
    assert first["items"][1]["balance"] == "1260.00" and first["items"][1]["debit"] == "1200.00"
    assert second["items"][-1]["balance"] == "1280.00"
    whole = ok(people["viewer"], "getAccountTransactions", {**MARCH, "account": "1100"})
    # An invoice and its payment name the same document: both are named.
    assert [item["document"] for item in whole["items"]] == [
        "INV-0003",
        "INV-0001",
        "INV-0002",
        "CN-0001",
        "INV-0001",
        "INV-0003",
    ]
    taxed = ok(people["viewer"], "getAccountTransactions", {**MARCH, "taxType": "UK-RC"})
    assert [item["account"] for item in taxed["items"]] == ["5000"]


@pytest.mark.parametrize(
    ("name", "arguments", "words"),
    [
        (
            "getProfitAndLoss",
            {"fromDate": "2026-03-31", "toDate": "2026-03-01"},
            "`toDate`: must be on or after 2026-03-31",
        ),
        ("getAccountTransactions", {"fromDate": "2026-03-31", "toDate": "2026-03-01"}, "toDate"),
        ("getAccountTransactions", {**MARCH, "account": "9999"}, "there is no account 9999"),
        ("getVatReturn", {**MARCH, "scheme": "cash"}, "cash scheme is not supported"),
        ("getVatReturn", {"fromDate": "2026-04-01", "toDate": "2026-03-01"}, "toDate"),
        ("getAgedBalances", {"side": "debtors"}, "side"),
        ("getBalanceSheet", {"asOf": "31/03/2026"}, "asOf"),
    ],
)
def test_bad_input_is_refused_plainly(people, name, arguments, words):
    assert words in refused(people["viewer"], name, arguments)


def test_books_that_do_not_keep_uk_vat_have_no_vat_return(people):
    ledger.books_update(actor=people["owner"], base_currency="EUR")

    assert "these books keep EU VAT in EUR" in refused(people["viewer"], "getVatReturn", MARCH)


@pytest.mark.parametrize(
    "name",
    ["getProfitAndLoss", "getBalanceSheet", "getAgedBalances", "getAccountTransactions", "getVatReturn"],
)
def test_a_role_without_the_books_cannot_call_the_reports(acme, name):
    person = person_without("accounting.view", email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, MARCH, session=MemorySession())


# --- the page and its exports ----------------------------------------------------------------------


def test_the_page_shows_the_reports_and_exports_csv_and_pdf(month, people, acme_client):
    acme_client.force_login(people["viewer"])
    query = "?from=2026-03-01&to=2026-03-31"

    page = acme_client.get(f"/settings/accounting/{query}").content.decode()
    for title in (
        "Profit and loss",
        "Balance sheet",
        "Trial balance",
        "Aged receivables",
        "Aged payables",
        "VAT return",
        "General ledger",
    ):
        assert title in page
    assert "1880.00" in page and "INV-0002" in page

    response = acme_client.get(f"/settings/accounting/reports/balance-sheet.csv{query}")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert response.content.startswith(b"\xef\xbb\xbf")
    text = response.content.decode("utf-8-sig")
    assert "Total liabilities and equity,1880.00\r\n" in text and "Current year earnings,900.00" in text

    pdf = acme_client.get(f"/settings/accounting/reports/vat-return.pdf{query}")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    words = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf.content)).pages)
    assert "VAT return" in words and "360.00" in words and "220.00" in words

    for report in ("profit-and-loss", "trial-balance", "aged-receivables", "aged-payables", "general-ledger"):
        for kind in ("csv", "pdf"):
            assert acme_client.get(f"/settings/accounting/reports/{report}.{kind}{query}").status_code == 200

    ledger_csv = acme_client.get(f"/settings/accounting/reports/general-ledger.csv{query}").content.decode(
        "utf-8-sig"
    )
    assert "INV-0001" in ledger_csv and ledger_csv.count("\r\n") > 10


def test_an_export_of_a_backwards_period_is_refused_with_the_reason(people, acme_client):
    acme_client.force_login(people["viewer"])

    response = acme_client.get(
        "/settings/accounting/reports/profit-and-loss.csv?from=2026-03-31&to=2026-03-01"
    )

    assert response.status_code == 400 and "must be on or after 2026-03-31" in response.content.decode()
    page = acme_client.get("/settings/accounting/?from=2026-03-31&to=2026-03-01").content.decode()
    assert "The period ends before it starts." in page
    assert acme_client.get("/settings/accounting/reports/nothing.csv").status_code == 404


def test_a_person_without_the_books_gets_no_export(people, acme_client):
    person = person_with({"contacts.view"}, email="no-reports@acme.example")
    acme_client.force_login(person)

    assert acme_client.get("/settings/accounting/reports/profit-and-loss.csv").status_code == 403


def test_csv_cells_that_look_like_formulas_are_neutralised():
    table = Table(
        "T", ["Name", "Amount"], [['=HYPERLINK("x")', D("-5.00")], ["+1", D("1")], ["@SUM", None], ["-2", 3]]
    )

    text = csv_bytes([table], heading=["Report"]).decode("utf-8-sig")

    assert "'=HYPERLINK" in text and "'+1" in text and "'@SUM" in text and "'-2" in text
    # Amounts are numbers, not text: a negative one keeps its sign.
    assert ",-5.00\r\n" in text
