"""A month of a small UK business (March 2026), end to end through the tools as an agent calls them:
invoices, a payment, a credit note, bills typed in and read from a document, a bill payment, an
accrual and its reversal, the bank statement imported and every line matched (the bank account's
ledger balance is then the statement's closing balance), the month locked, and the quarter's VAT
return, whose boxes are the VAT account."""

from datetime import date
from decimal import Decimal

from apps.accounting.lib import ledger
from apps.accounting.tests.bills_data import bill_pdf
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused

CLOSING = "1538.60"
STATEMENT = """<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>HARBOUR-2026-03</MsgId><CreDtTm>2026-03-31T18:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>HARBOUR-STMT-03</Id>
      <CreDtTm>2026-03-31T18:00:00</CreDtTm>
      <Acct><Id><IBAN>GB33BUKB20201555555555</IBAN></Id><Ccy>GBP</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="GBP">0.00</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-01</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="GBP">{closing}</Amt>
        <CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-31</Dt></Dt></Bal>
{entries}
    </Stmt>
  </BkToCstmrStmt>
</Document>
"""
ENTRY = """      <Ntry>
        <NtryRef>{ref}</NtryRef><Amt Ccy="GBP">{amount}</Amt><CdtDbtInd>{side}</CdtDbtInd>
        <Sts>BOOK</Sts><BookgDt><Dt>{day}</Dt></BookgDt><ValDt><Dt>{day}</Dt></ValDt>
        <AcctSvcrRef>{ref}</AcctSvcrRef>
        <NtryDtls><TxDtls><RmtInf><Ustrd>{text}</Ustrd></RmtInf></TxDtls></NtryDtls>
      </Ntry>"""
LINES = [
    ("H-01", "1440.00", "CRDT", "2026-03-12", "Globex Retail INV-0001"),
    ("H-02", "503.40", "DBIT", "2026-03-20", "Northwind Supplies NW-20417"),
    ("H-03", "890.00", "CRDT", "2026-03-25", "Initech INV-0002"),
    ("H-04", "288.00", "DBIT", "2026-03-28", "Hill Plumbing HP-311"),
]


def statement() -> str:
    entries = "\n".join(
        ENTRY.format(ref=ref, amount=amount, side=side, day=day, text=text)
        for ref, amount, side, day, text in LINES
    )
    return STATEMENT.format(closing=CLOSING, entries=entries)


def balances(as_of: date) -> dict[str, Decimal]:
    return {row.code: row.debit - row.credit for row in ledger.trial_balance(as_of=as_of).rows}


def test_a_month_of_a_small_uk_business_closes_with_the_bank_and_vat_tied(people, acme_client):
    owner, bookkeeper = people["owner"], people["member"]

    # Sales: two invoices, one paid by a payment recorded first, one corrected by a credit note.
    globex = ok(
        bookkeeper,
        "createInvoice",
        {
            "invoice": {"customerName": "Globex Retail", "issueDate": "2026-03-02"},
            "lines": [
                {"description": "Design work", "quantity": "10", "unitPrice": "120", "taxType": "UK-STD"}
            ],
        },
    )
    initech = ok(
        bookkeeper,
        "createInvoice",
        {
            "invoice": {"customerName": "Initech", "issueDate": "2026-03-05"},
            "lines": [
                {"description": "Brand workshop", "unitPrice": "800", "taxType": "UK-STD"},
                {"description": "Printed guide", "unitPrice": "50", "taxType": "UK-ZERO"},
            ],
        },
    )
    first = ok(bookkeeper, "approveInvoice", {"invoiceId": globex["id"]})
    second = ok(bookkeeper, "approveInvoice", {"invoiceId": initech["id"]})
    assert (first["number"], first["total"], second["number"], second["total"]) == (
        "INV-0001",
        "1440.00",
        "INV-0002",
        "1010.00",
    )
    received = ok(
        bookkeeper, "recordPayment", {"invoiceId": globex["id"], "amount": "1440", "on": "2026-03-12"}
    )
    assert received["invoice"]["status"] == "paid"
    note = ok(bookkeeper, "manageInvoice", {"invoiceId": initech["id"], "action": "credit"})["created"]
    ok(
        bookkeeper,
        "updateInvoice",
        {
            "invoiceId": note["id"],
            "invoice": {"issueDate": "2026-03-15"},
            "lines": [{"description": "Workshop shortened", "unitPrice": "100", "taxType": "UK-STD"}],
        },
    )
    credit = ok(bookkeeper, "approveInvoice", {"invoiceId": note["id"]})
    assert (credit["number"], credit["total"]) == ("CN-0001", "120.00")
    assert ok(bookkeeper, "getInvoice", {"invoiceId": initech["id"]})["amountDue"] == "890.00"

    # Purchases: a bill typed in, a bill read from its PDF, and a bill payment recorded first.
    plumber = ok(
        bookkeeper,
        "createBill",
        {
            "bill": {"supplierName": "Hill Plumbing", "reference": "HP-311", "issueDate": "2026-03-04"},
            "lines": [
                {"description": "Boiler repair", "unitPrice": "240", "taxType": "UK-STD", "account": "6000"}
            ],
        },
    )["bill"]
    assert ok(bookkeeper, "postPurchaseInvoice", {"billId": plumber["id"]})["amountDue"] == "288.00"
    read = ok(bookkeeper, "extractPurchaseBillDocument", {"fileId": bill_pdf(bookkeeper).pk})["bill"]
    assert (read["supplierName"], read["reference"], read["total"]) == (
        "Northwind Supplies Ltd",
        "NW-20417",
        "503.40",
    )
    assert ok(bookkeeper, "validatePurchaseInvoiceProposal", {"billId": read["id"]})["problems"] == []
    ok(bookkeeper, "postPurchaseInvoice", {"billId": read["id"]})
    paid_out = ok(
        bookkeeper, "recordBillPayment", {"billId": read["id"], "amount": "503.40", "on": "2026-03-20"}
    )
    assert paid_out["bill"]["status"] == "paid"

    # Month end: the accountancy fee accrued, undone on the first of April.
    accrual = ok(
        bookkeeper,
        "postJournal",
        {
            "on": "2026-03-31",
            "narration": "Accrued accountancy fee",
            "lines": [{"account": "6000", "debit": "500"}, {"account": "2300", "credit": "500"}],
            "reverseOn": "2026-04-01",
        },
    )
    assert accrual["reversal"]["date"] == "2026-04-01"

    # The bank statement: imported, every line matched (payments recorded first by their ids, the
    # rest by the documents' lines).
    imported = ok(bookkeeper, "createFinancial", {"statement": {"format": "camt053", "content": statement()}})
    assert imported["created"] == 4
    ids = [line["id"] for line in sorted(imported["lines"], key=lambda line: line["date"])]
    assert [line["amount"] for line in sorted(imported["lines"], key=lambda line: line["date"])] == [
        "1440.00",
        "-503.40",
        "890.00",
        "-288.00",
    ]
    ok(
        bookkeeper,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [ids[0]], "paymentIds": [received["id"]]},
    )
    ok(
        bookkeeper,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [ids[1]], "paymentIds": [paid_out["payment"]["id"]]},
    )
    ok(
        bookkeeper,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [ids[2]], "lines": [{"invoiceId": initech["id"]}]},
    )
    ok(
        bookkeeper,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [ids[3]], "lines": [{"billId": plumber["id"]}]},
    )
    accounts = ok(bookkeeper, "getFinancialsSummary")["accounts"]
    [bank] = [row for row in accounts if row["bankAccount"]["ledgerAccount"] == "1200"]
    assert (bank["balance"], bank["ledgerBalance"], bank["unmatched"]) == (CLOSING, CLOSING, 0)
    assert (bank["unmatchedIn"], bank["unmatchedOut"]) == ("0.00", "0.00")
    # The reconciliation at the statement's date: its closing balance is the ledger's, nothing between.
    arguments = {"bankAccountId": bank["bankAccount"]["id"], "asOf": "2026-03-31"}
    rec = ok(bookkeeper, "getBankReconciliation", {**arguments, "statementBalance": CLOSING})
    assert (rec["statementBalance"], rec["ledgerBalance"], rec["difference"]) == (CLOSING, CLOSING, "0.00")
    assert rec["unmatched"] == [] and rec["unreconciledPostings"] == [] and rec["reconciledLines"] == 4
    assert ok(bookkeeper, "getInvoice", {"invoiceId": initech["id"]})["status"] == "paid"
    assert ok(bookkeeper, "searchPurchaseInvoices", {"unpaid": True})["items"] == []

    # The month locked: nothing more posts in March.
    ok(owner, "setLockDate", {"lockDate": "2026-03-31"})
    late = refused(
        bookkeeper,
        "createBill",
        {
            "bill": {"supplierName": "Hill Plumbing", "reference": "HP-312", "issueDate": "2026-03-30"},
            "lines": [{"description": "Call-out", "unitPrice": "60", "taxType": "UK-STD"}],
        },
    )
    assert "2026-03-30 is in a locked period" in late

    # The books at the month's end, and the quarter's VAT return against the VAT account.
    assert balances(date(2026, 3, 31)) == {
        "1200": Decimal(CLOSING),
        "2200": Decimal("-248.10"),
        "2300": Decimal("-500.00"),
        "4000": Decimal("-1950.00"),
        "5000": Decimal("419.50"),
        "6000": Decimal("740.00"),
    }
    after = balances(date(2026, 4, 1))
    assert "2300" not in after and after["6000"] == Decimal("240.00")  # the accrual reversed
    vat = ok(owner, "getVatReturn", {"fromDate": "2026-01-01", "toDate": "2026-03-31"})
    boxes = {box["box"]: box["amount"] for box in vat["boxes"]}
    assert boxes == {
        1: "380.00",
        2: "0.00",
        3: "380.00",
        4: "131.90",
        5: "248.10",
        6: "1950",
        7: "659",
        8: "0",
        9: "0",
    }
    assert vat["payable"] is True
    assert Decimal(boxes[5]) == -balances(date(2026, 3, 31))["2200"]
    summary = ok(people["viewer"], "getAccountingSummary", {"asOf": "2026-03-31"})
    assert (summary["receivable"], summary["payable"], summary["balanced"]) == ("0.00", "0.00", True)

    # The month as a person reads it on the Accounting page: the reports for March (sales, the VAT
    # return's box 5) and the bank account reconciled.
    acme_client.force_login(people["viewer"])
    page = acme_client.get(
        f"/settings/accounting/?from=2026-03-01&to=2026-03-31&bank={arguments['bankAccountId']}"
    ).content.decode()
    assert "1950.00" in page and "248.10" in page
    assert f'data-testid="statement-balance">{CLOSING} GBP' in page
    assert 'data-testid="difference">0.00 GBP' in page
