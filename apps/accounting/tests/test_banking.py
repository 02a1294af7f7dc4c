"""The bank side without documents, through the tools: bank accounts added (with an opening
balance), renamed, archived and restored; money spent and received coded to accounts with tax;
transfers in one currency and across currencies (FX realised); each reconciled with its statement
line at once or later; voided by a reversing entry. Each with its bad input and refusals."""

from datetime import date
from decimal import Decimal

import pytest
from django.db.models import Sum

from apps.accounting.lib import ledger, rates
from apps.accounting.lib.money import round_money
from apps.accounting.models import Account, BankAccount, BankTransaction, Financial, JournalEntry, JournalLine
from apps.accounting.services import bank, banking
from apps.accounting.tests.factories import bank_line
from apps.accounting.tests.samples import acc_ok as ok
from apps.accounting.tests.samples import acc_refused as refused
from apps.accounting.tests.samples import started
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, person_without, text_of

pytestmark = pytest.mark.django_db

PERMISSIONS = {
    "manageBankAccount": ("accounting.admin", {"action": "add", "name": "X", "currency": "GBP"}),
    "recordBankTransaction": (
        "accounting.post",
        {"direction": "spend", "lines": [{"account": "6000", "amount": "1", "taxType": "NONE"}]},
    ),
    "transferBankFunds": (
        "accounting.post",
        {"fromBankAccountId": 1, "toBankAccountId": 2, "amountOut": "1"},
    ),
    "voidBankTransaction": ("accounting.delete", {"transactionId": 1}),
    "listBankTransactions": ("accounting.view", {}),
}
SPEND = {
    "direction": "spend",
    "on": "2026-03-05",
    "contactName": "City Car Park",
    "lines": [{"account": "6200", "amount": "120.00", "taxType": "UK-STD", "description": "Parking"}],
}


def balance_of(code: str) -> Decimal:
    """An account's balance in base currency."""
    return JournalLine.objects.filter(account__code=code).aggregate(total=Sum("base_amount"))[
        "total"
    ] or Decimal(0)


def assert_balanced() -> None:
    trial = ledger.trial_balance()
    assert trial.total_debit == trial.total_credit


@pytest.mark.parametrize("name", sorted(PERMISSIONS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = PERMISSIONS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments, session=MemorySession())


def test_viewers_and_members_are_refused_the_writes(people):
    for name in ("manageBankAccount", "recordBankTransaction", "transferBankFunds"):
        with pytest.raises(ToolNotFound):
            call(people["viewer"], name, PERMISSIONS[name][1], session=started(people["viewer"]))
    with pytest.raises(ToolNotFound):
        call(
            people["member"],
            "manageBankAccount",
            PERMISSIONS["manageBankAccount"][1],
            session=MemorySession(),
        )


# --- bank accounts ------------------------------------------------------------------------------------


def test_a_bank_account_is_added_with_its_opening_balance_renamed_archived_and_restored(people):
    owner = people["owner"]
    ledger.books()
    made = ok(
        owner,
        "manageBankAccount",
        {
            "action": "add",
            "name": "Savings",
            "currency": "GBP",
            "iban": "GB29 NWBK 6016 1331 9268 19",
            "number": "31926819",
            "openingBalance": "2500.00",
            "openingDate": "2026-01-31",
        },
    )

    assert (made["name"], made["currency"], made["balance"]) == ("Savings", "GBP", "2500.00")
    assert made["iban"] == "GB29**************6819" and made["number"] == "****6819"
    assert "1200" < made["ledgerAccount"] <= "1299" and made["archived"] is False
    opening = JournalEntry.objects.get(source=f"opening:{made['id']}")
    lines = {line.account.name: line.amount for line in opening.lines.select_related("account")}
    assert opening.journal.code == "GEN" and opening.date == date(2026, 1, 31)
    assert lines == {"Savings": Decimal("2500.0000"), "Opening balance equity": Decimal("-2500.0000")}
    assert Account.objects.get(name="Opening balance equity").type == "equity"
    listed = ok(people["viewer"], "listBankAccounts")["accounts"]
    balances = {a["name"]: a["balance"] for a in listed}
    assert balances["Bank current account"] == "0.00" and balances["Savings"] == "2500.00"
    assert "GB29NWBK60161331926819" not in str(listed)

    renamed = ok(
        owner, "manageBankAccount", {"action": "rename", "bankAccountId": made["id"], "name": "Reserve"}
    )
    assert renamed["name"] == "Reserve"
    assert Account.objects.get(code=made["ledgerAccount"]).name == "Reserve"

    # An account holding money is not archived: its balance is transferred out first.
    assert "holds 2500.00 GBP" in refused(
        owner, "manageBankAccount", {"action": "archive", "bankAccountId": made["id"]}
    )
    first = next(a["id"] for a in listed if a["name"] == "Bank current account")
    ok(
        owner,
        "transferBankFunds",
        {"fromBankAccountId": made["id"], "toBankAccountId": first, "amountOut": "2500", "on": "2026-02-01"},
    )
    archived = ok(owner, "manageBankAccount", {"action": "archive", "bankAccountId": made["id"]})
    assert archived["archived"] is True and Account.objects.get(code=made["ledgerAccount"]).archived
    names = [a["name"] for a in ok(people["viewer"], "listBankAccounts")["accounts"]]
    assert "Reserve" not in names and "Bank current account" in names
    shown = ok(people["viewer"], "listBankAccounts", {"archived": True})["accounts"]
    assert {("Bank current account", False), ("Reserve", True)} <= {(a["name"], a["archived"]) for a in shown}
    # The last live bank account is never archived.
    for other in BankAccount.objects.live().exclude(pk=first):
        banking.bank_account_archive(actor=owner, bank=other)
    assert "last bank account" in refused(
        owner, "manageBankAccount", {"action": "archive", "bankAccountId": first}
    )
    restored = ok(owner, "manageBankAccount", {"action": "restore", "bankAccountId": made["id"]})
    assert restored["archived"] is False and not Account.objects.get(code=made["ledgerAccount"]).archived
    assert_balanced()


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"action": "add", "name": "Savings"}, "add needs a name and a currency"),
        ({"action": "add", "name": "Savings", "currency": "XYZ"}, "currency"),
        ({"action": "add", "name": "Savings", "currency": "GBP", "iban": "GB00 1234"}, "not a valid IBAN"),
        ({"action": "add", "name": "Savings", "currency": "GBP", "number": "no digits"}, "has digits"),
        ({"action": "add", "name": "Savings", "currency": "GBP", "openingBalance": "10"}, "openingDate"),
        (
            {
                "action": "add",
                "name": "S",
                "currency": "GBP",
                "openingBalance": "1.234",
                "openingDate": "2026-01-01",
            },
            "more decimals",
        ),
        ({"action": "rename", "name": "Other"}, "bankAccountId"),
        ({"action": "rename", "bankAccountId": 999999, "name": "Other"}, "listBankAccounts"),
    ],
)
def test_bad_bank_account_input_is_named_and_adds_nothing(people, arguments, problem):
    ledger.books()
    before = (BankAccount.objects.count(), Account.objects.count(), JournalEntry.objects.count())
    assert problem in refused(people["owner"], "manageBankAccount", arguments)
    assert (BankAccount.objects.count(), Account.objects.count(), JournalEntry.objects.count()) == before


def test_an_opening_balance_in_a_locked_period_is_refused(people):
    ledger.books_update(actor=people["owner"], lock_date=date(2026, 2, 28))
    before = BankAccount.objects.count()
    arguments = {
        "action": "add",
        "name": "Old",
        "currency": "GBP",
        "openingBalance": "5",
        "openingDate": "2026-02-01",
    }
    assert "locked period" in refused(people["owner"], "manageBankAccount", arguments)
    assert BankAccount.objects.count() == before


# --- money spent and received ---------------------------------------------------------------------------


def test_money_is_spent_with_its_tax_and_reconciled_with_its_statement_line_at_once(people):
    owner = people["owner"]
    line = bank_line(owner, "-120.00", day=date(2026, 3, 5), description="CITY CAR PARK")
    before = (balance_of("1200"), balance_of("2200"), balance_of("6200"))

    spent = ok(owner, "recordBankTransaction", {**SPEND, "financialId": line.pk})

    assert (spent["kind"], spent["amount"], spent["currency"], spent["contactName"]) == (
        "spend",
        "-120.00",
        "GBP",
        "City Car Park",
    )
    assert [(x["account"], x["amount"], x["taxType"]) for x in spent["lines"]] == [
        ("6200", "100.00", "UK-STD"),
        ("2200", "20.00", "UK-STD"),
    ]
    entry = JournalEntry.objects.get(pk=spent["entryId"])
    assert entry.journal.code == "BNK" and entry.source == f"banktx:{spent['id']}"
    after = (balance_of("1200"), balance_of("2200"), balance_of("6200"))
    assert [a - b for a, b in zip(after, before, strict=True)] == [Decimal(-120), Decimal(20), Decimal(100)]
    line.refresh_from_db()
    assert spent["matchId"] is not None and line.match_id == spent["matchId"]
    unmatched = {"matched": False, "bankAccountId": line.bank_account_id}
    assert ok(people["viewer"], "listFinancials", unmatched)["total"] == 0
    assert_balanced()

    received = ok(
        owner,
        "recordBankTransaction",
        {
            "direction": "receive",
            "on": "2026-03-06",
            "pricesIncludeTax": False,
            "reference": "INT-MAR",
            "lines": [
                {"account": "4900", "amount": "40", "taxType": "NONE", "description": "Interest"},
                {"account": "4100", "amount": "10", "taxType": "UK-STD"},
            ],
        },
    )
    assert received["amount"] == "52.00" and received["matchId"] is None
    assert [(x["account"], x["amount"]) for x in received["lines"]] == [
        ("4900", "-40.00"),
        ("4100", "-10.00"),
        ("2200", "-2.00"),
    ]
    assert balance_of("1200") - after[0] == Decimal(52)
    listed = ok(people["viewer"], "listBankTransactions", {"kind": "receive"})
    assert [row["id"] for row in listed["items"]] == [received["id"]]
    assert ok(people["viewer"], "listBankTransactions", {"query": "car park"})["total"] == 1
    assert_balanced()


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"lines": [{"account": "1100", "amount": "5", "taxType": "NONE"}]}, "control or bank account"),
        ({"lines": [{"account": "1200", "amount": "5", "taxType": "NONE"}]}, "control or bank account"),
        ({"lines": [{"account": "9999", "amount": "5", "taxType": "NONE"}]}, "no account 9999"),
        ({"lines": [{"account": "6000", "amount": "5", "taxType": "NOPE"}]}, "no tax type NOPE"),
        ({"lines": [{"account": "6000", "amount": "1.234", "taxType": "NONE"}]}, "more decimals"),
        ({"lines": [{"account": "6000", "amount": "0", "taxType": "NONE"}]}, "must not be zero"),
        ({"lines": [{"account": "6000", "amount": "-5", "taxType": "NONE"}]}, "more than zero"),
        ({"direction": "sideways"}, "direction"),
        ({"bankAccountId": 999999}, "listBankAccounts"),
    ],
)
def test_bad_transaction_input_is_refused_before_the_question_and_posts_nothing(people, change, problem):
    owner = people["owner"]
    ledger.books()
    entries = JournalEntry.objects.count()
    result = call(owner, "recordBankTransaction", {**SPEND, **change}, session=started(owner))
    assert result["isError"] is True and problem in text_of(result)
    assert "Confirmation required" not in text_of(result)
    assert JournalEntry.objects.count() == entries and not BankTransaction.objects.exists()


def test_a_statement_line_of_another_amount_or_account_is_refused(people):
    owner = people["owner"]
    other = bank.bank_account_create(actor=owner, name="Other", currency="GBP")
    elsewhere = bank.financial_create(
        actor=owner, bank=other, fields={"date": date(2026, 3, 5), "amount": Decimal("-120.00")}
    )
    wrong = bank_line(owner, "-99.00", day=date(2026, 3, 5))
    assert "is -99.00 GBP, the transaction -120.00" in refused(
        owner, "recordBankTransaction", {**SPEND, "financialId": wrong.pk}
    )
    assert "is on bank account Other" in refused(
        owner, "recordBankTransaction", {**SPEND, "financialId": elsewhere.pk}
    )
    assert not BankTransaction.objects.exists() and not Financial.objects.filter(match__isnull=False).exists()


def test_a_locked_period_is_refused_before_the_question(people):
    owner = people["owner"]
    ledger.books_update(actor=owner, lock_date=date(2026, 3, 31))
    result = call(owner, "recordBankTransaction", SPEND, session=started(owner))
    assert "locked period" in text_of(result) and "Confirmation required" not in text_of(result)
    # A possible one asks first (no way to ask here: refused until confirmed).
    asked = call(owner, "recordBankTransaction", {**SPEND, "on": "2026-04-02"}, session=started(owner))
    assert asked["isError"] is True and "Confirmation required" in text_of(asked)
    assert not BankTransaction.objects.exists()


# --- transfers -----------------------------------------------------------------------------------------


def test_a_transfer_in_one_currency_is_one_entry_each_side_matched_to_its_line(people):
    owner = people["owner"]
    first = bank.bank_account_get(actor=owner, bank_account_id=None)
    savings = bank.bank_account_create(actor=owner, name="Savings", currency="GBP")
    out_line = bank_line(owner, "-300.00", day=date(2026, 3, 9), description="TO SAVINGS")
    in_line = bank.financial_create(
        actor=owner, bank=savings, fields={"date": date(2026, 3, 9), "amount": Decimal("300.00")}
    )

    moved = ok(
        owner,
        "transferBankFunds",
        {
            "fromBankAccountId": first.pk,
            "toBankAccountId": savings.pk,
            "amountOut": "300",
            "on": "2026-03-09",
            "financialOutId": out_line.pk,
            "financialInId": in_line.pk,
        },
    )

    assert (moved["moneyOut"]["amount"], moved["moneyIn"]["amount"], moved["fxGain"]) == (
        "-300.00",
        "300.00",
        "0.00",
    )
    assert moved["moneyOut"]["entryId"] == moved["moneyIn"]["entryId"]
    assert moved["moneyOut"]["counterpartId"] == moved["moneyIn"]["id"]
    assert moved["moneyOut"]["matchId"] and moved["moneyIn"]["matchId"]
    assert moved["moneyOut"]["matchId"] != moved["moneyIn"]["matchId"]
    assert (banking.ledger_balance(first), banking.ledger_balance(savings)) == (
        Decimal("-300.00"),
        Decimal("300.00"),
    )
    assert not Financial.objects.filter(match__isnull=True, bank_account__in=[first, savings]).exists()
    assert "another bank account" in refused(
        owner,
        "transferBankFunds",
        {"fromBankAccountId": first.pk, "toBankAccountId": first.pk, "amountOut": "5"},
    )
    assert "the amount in is the amount out" in refused(
        owner,
        "transferBankFunds",
        {"fromBankAccountId": first.pk, "toBankAccountId": savings.pk, "amountOut": "5", "amountIn": "6"},
    )
    assert_balanced()


def test_a_transfer_across_currencies_realises_the_fx_difference(people):
    owner = people["owner"]
    first = bank.bank_account_get(actor=owner, bank_account_id=None)
    euro = bank.bank_account_create(actor=owner, name="Euro account", currency="EUR")
    day = date(2026, 3, 10)
    arguments = {
        "fromBankAccountId": first.pk,
        "toBankAccountId": euro.pk,
        "amountOut": "1000",
        "on": "2026-03-10",
    }
    assert "amountIn" in refused(owner, "transferBankFunds", arguments)

    moved = ok(owner, "transferBankFunds", {**arguments, "amountIn": "1150.00"})

    euro_rate = rates.rate(source="EUR", target="GBP", on=day).value
    gain = round_money(Decimal("1150.00") * euro_rate, "GBP") - Decimal(1000)
    assert moved["moneyIn"]["currency"] == "EUR" and moved["moneyIn"]["amount"] == "1150.00"
    assert moved["fxGain"] == str(gain)
    assert moved["moneyOut"]["entryId"] != moved["moneyIn"]["entryId"]
    assert banking.ledger_balance(euro) == Decimal("1150.00")
    assert banking.ledger_balance(first) == Decimal("-1000.00")
    clearing = Account.objects.get(name="Transfers between bank accounts")
    assert balance_of(clearing.code) == 0
    assert -balance_of("7900") == gain
    assert_balanced()

    # Voided: both sides, both entries reversed, the FX with them.
    voided = ok(owner, "voidBankTransaction", {"transactionId": moved["moneyIn"]["id"], "on": "2026-03-11"})
    assert sorted(row["kind"] for row in voided["voided"]) == ["transfer_in", "transfer_out"]
    assert all(row["voided"] for row in voided["voided"])
    assert (banking.ledger_balance(euro), banking.ledger_balance(first), balance_of("7900")) == (0, 0, 0)
    assert_balanced()


# --- void, and reconciling later --------------------------------------------------------------------------


def test_a_transaction_is_voided_by_a_reversal_and_reconciled_later_through_matching(people):
    owner = people["owner"]
    spent = ok(owner, "recordBankTransaction", SPEND)
    line = bank_line(owner, "-120.00", day=date(2026, 3, 6))
    before = balance_of("1200")

    made = ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line.pk], "transactionIds": [spent["id"]]},
    )
    assert made["transactionIds"] == [spent["id"]] and made["lines"] == [] and made["payments"] == []
    assert balance_of("1200") == before  # reconciling posts nothing

    # A reconciled transaction is not voided: the match is undone first (before any question).
    asked = call(owner, "voidBankTransaction", {"transactionId": spent["id"]}, session=started(owner))
    assert "unmatchPurchaseInvoiceLine" in text_of(asked) and "Confirmation required" not in text_of(asked)
    ok(owner, "unmatchPurchaseInvoiceLine", {"matchId": made["id"]})
    assert BankTransaction.objects.get(pk=spent["id"]).match_id is None

    voided = ok(owner, "voidBankTransaction", {"transactionId": spent["id"], "on": "2026-03-20"})
    row = voided["voided"][0]
    assert row["voided"] is True and balance_of("1200") == before + Decimal(120)
    reversal = JournalEntry.objects.get(reverses_id=spent["entryId"])
    assert reversal.date == date(2026, 3, 20)
    assert "was voided" in refused(owner, "voidBankTransaction", {"transactionId": spent["id"]})
    assert "was voided" in refused(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line.pk], "transactionIds": [spent["id"]]},
    )
    assert ok(people["viewer"], "listBankTransactions", {"voided": False})["total"] == 0
    assert "listBankTransactions" in refused(owner, "voidBankTransaction", {"transactionId": 999999})
    assert_balanced()


def test_a_void_in_a_locked_period_is_refused(people):
    owner = people["owner"]
    spent = ok(owner, "recordBankTransaction", SPEND)
    ledger.books_update(actor=owner, lock_date=date(2026, 3, 31))
    assert "locked period" in refused(
        owner, "voidBankTransaction", {"transactionId": spent["id"], "on": "2026-03-10"}
    )
    assert BankTransaction.objects.get(pk=spent["id"]).voided_at is None


# --- a foreign-currency invoice paid into the home-currency account ------------------------------------


def test_a_dollar_invoice_paid_into_the_pound_account_takes_what_arrived_and_realises_fx(people):
    from apps.accounting.tests.factories import issued

    owner = people["owner"]
    invoice = issued(owner, currency="USD", issue_date=date(2026, 3, 2), lines=[("Work", "100", "NONE")])
    before = balance_of("1200")
    arguments = {"invoiceId": invoice.pk, "amount": "100", "on": "2026-03-12", "amountReceived": "78.00"}

    paid = ok(owner, "recordPayment", arguments)

    assert invoice.rate is not None
    cleared = round_money(Decimal(100) * invoice.rate, "GBP")
    assert balance_of("1200") - before == Decimal("78.00")
    assert paid["fxGain"] == str(Decimal("78.00") - cleared)
    assert paid["invoice"]["status"] == "paid"
    assert_balanced()

    # Only into a base-currency account, in another currency than the invoice's; checked first.
    dollars = bank.bank_account_create(actor=owner, name="Dollar account", currency="USD")
    other = issued(owner, currency="USD", issue_date=date(2026, 3, 2), lines=[("Work", "50", "NONE")])
    result = call(
        owner,
        "recordPayment",
        {"invoiceId": other.pk, "amount": "50", "amountReceived": "39", "bankAccount": dollars.account.code},
        session=started(owner),
    )
    assert "only for a bank account in the base currency GBP" in text_of(result)
    assert "Confirmation required" not in text_of(result)


def test_a_dollar_invoice_is_matched_to_the_pound_statement_line_that_paid_it(people):
    from apps.accounting.tests.factories import issued

    owner = people["owner"]
    invoice = issued(owner, currency="USD", issue_date=date(2026, 3, 2), lines=[("Work", "200", "NONE")])
    second = issued(owner, currency="USD", issue_date=date(2026, 3, 2), lines=[("Work", "20", "NONE")])
    line = bank_line(owner, "157.30", day=date(2026, 3, 14), description="WIRE USD 200")
    before = balance_of("1200")

    assert "match it alone" in refused(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line.pk], "lines": [{"invoiceId": invoice.pk}, {"invoiceId": second.pk}]},
    )
    made = ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [line.pk], "lines": [{"invoiceId": invoice.pk}]},
    )

    assert made["total"] == "157.30" and made["currency"] == "GBP"
    invoice.refresh_from_db()
    assert invoice.status == "paid" and balance_of("1200") - before == Decimal("157.30")
    assert invoice.rate is not None
    assert -balance_of("7900") == Decimal("157.30") - round_money(Decimal(200) * invoice.rate, "GBP")
    assert_balanced()
    # Undone: the payment reversed, the invoice open again.
    ok(owner, "unmatchPurchaseInvoiceLine", {"matchId": made["id"]})
    invoice.refresh_from_db()
    assert invoice.status in ("approved", "sent") and balance_of("1200") == before
    assert_balanced()


# --- bank rules ----------------------------------------------------------------------------------------


def test_a_bank_rule_suggests_how_to_code_unmatched_lines_and_posts_nothing(people):
    owner = people["owner"]
    ledger.books()
    entries = JournalEntry.objects.count()
    rule = ok(
        people["member"],
        "manageBankRule",
        {
            "action": "add",
            "rule": {
                "name": "Taxis",
                "contains": "uber trip",
                "direction": "out",
                "amountMax": "100",
                "contactName": "Uber",
                "account": "6200",
                "taxType": "UK-STD",
            },
        },
    )
    assert (rule["account"], rule["taxType"], rule["amountMax"], rule["bankAccountId"]) == (
        "6200",
        "UK-STD",
        "100.00",
        None,
    )
    ok(
        owner,
        "manageBankRule",
        {
            "action": "add",
            "rule": {
                "name": "Refunds",
                "direction": "in",
                "account": "4900",
                "taxType": "NONE",
                "position": 5,
            },
        },
    )
    taxi = bank_line(owner, "-23.40", description="UBER *TRIP London")
    dear = bank_line(owner, "-230.00", description="UBER *TRIP airport")
    money_in = bank_line(owner, "15.00", description="Refund")
    plain = bank_line(owner, "-5.00", description="Coffee")

    listed = {line["id"]: line["suggestion"] for line in ok(people["viewer"], "listFinancials")["items"]}
    assert listed[taxi.pk] == {
        "ruleId": rule["id"],
        "rule": "Taxis",
        "direction": "spend",
        "contactName": "Uber",
        "account": "6200",
        "taxType": "UK-STD",
    }
    assert listed[dear.pk] is None and listed[plain.pk] is None  # over the amount; no rule
    assert listed[money_in.pk]["rule"] == "Refunds" and listed[money_in.pk]["direction"] == "receive"
    assert JournalEntry.objects.count() == entries  # a rule posts nothing

    # Recorded as suggested, the line is matched and no longer suggested.
    ok(
        owner,
        "recordBankTransaction",
        {
            "direction": "spend",
            "on": "2026-03-10",
            "financialId": taxi.pk,
            "lines": [{"account": "6200", "amount": "23.40", "taxType": "UK-STD"}],
        },
    )
    again = {line["id"]: line["suggestion"] for line in ok(people["viewer"], "listFinancials")["items"]}
    assert again[taxi.pk] is None

    changed = ok(
        owner, "manageBankRule", {"action": "update", "ruleId": rule["id"], "rule": {"amountMax": "500"}}
    )
    assert changed["amountMax"] == "500.00"
    assert (
        ok(people["viewer"], "listFinancials", {"query": "airport"})["items"][0]["suggestion"]["rule"]
        == "Taxis"
    )
    assert [r["name"] for r in ok(people["viewer"], "listBankRules")["rules"]] == ["Taxis", "Refunds"]
    ok(owner, "manageBankRule", {"action": "delete", "ruleId": rule["id"]})
    assert [r["name"] for r in ok(people["viewer"], "listBankRules")["rules"]] == ["Refunds"]


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        ({"name": "R", "account": "6200", "taxType": "NONE"}, "at least one condition"),
        ({"name": "R", "contains": "x", "taxType": "NONE"}, "suggests an account"),
        ({"name": "R", "contains": "x", "account": "1100", "taxType": "NONE"}, "control or bank account"),
        ({"name": "R", "contains": "x", "account": "6200", "taxType": "NOPE"}, "no tax type NOPE"),
        (
            {"name": "R", "contains": "x", "account": "6200", "taxType": "NONE", "amountMin": "-1"},
            "magnitude",
        ),
        (
            {"name": "R", "account": "6200", "taxType": "NONE", "amountMin": "9", "amountMax": "5"},
            "at least amountMin",
        ),
        ({"name": "", "contains": "x", "account": "6200", "taxType": "NONE"}, "name the rule"),
        (
            {"name": "R", "contains": "x", "account": "6200", "taxType": "NONE", "bankAccountId": 999999},
            "listBankAccounts",
        ),
    ],
)
def test_a_bad_bank_rule_is_named_and_adds_nothing(people, rule, problem):
    ledger.books()
    assert problem in refused(people["owner"], "manageBankRule", {"action": "add", "rule": rule})
    from apps.accounting.models import BankRule

    assert not BankRule.objects.exists()


def test_a_rule_name_is_used_once_and_viewers_may_not_add_rules(people):
    ledger.books()
    rule = {"name": "Fees", "contains": "fee", "account": "6000", "taxType": "NONE"}
    ok(people["owner"], "manageBankRule", {"action": "add", "rule": rule})
    assert "already a rule named" in refused(
        people["owner"], "manageBankRule", {"action": "add", "rule": rule}
    )
    with pytest.raises(ToolNotFound):
        call(
            people["viewer"],
            "manageBankRule",
            {"action": "add", "rule": rule},
            session=started(people["viewer"]),
        )


# --- reconciliation ------------------------------------------------------------------------------------


def test_the_reconciliation_gives_the_difference_until_everything_is_reconciled(people):
    owner = people["owner"]
    made = ok(
        owner,
        "manageBankAccount",
        {
            "action": "add",
            "name": "Ops",
            "currency": "GBP",
            "openingBalance": "1000",
            "openingDate": "2026-02-28",
        },
    )
    account = BankAccount.objects.get(pk=made["id"])
    fee = bank.financial_create(
        actor=owner,
        bank=account,
        fields={"date": date(2026, 3, 3), "amount": Decimal("-12.00"), "description": "Fee"},
    )
    bank.financial_create(
        actor=owner,
        bank=account,
        fields={"date": date(2026, 4, 3), "amount": Decimal("-99.00"), "description": "Later"},
    )
    spent = ok(owner, "recordBankTransaction", {**SPEND, "bankAccountId": account.pk, "on": "2026-03-04"})
    arguments = {"bankAccountId": account.pk, "asOf": "2026-03-31"}

    first = ok(people["viewer"], "getBankReconciliation", arguments)
    assert (first["statementBalance"], first["ledgerBalance"], first["difference"]) == (
        "988.00",
        "880.00",
        "108.00",
    )
    assert first["unmatchedLines"] == 1 and first["unmatched"][0]["id"] == fee.pk
    assert [(p["kind"], p["id"], p["amount"]) for p in first["unreconciledPostings"]] == [
        ("spend", spent["id"], "-120.00")
    ]
    assert first["statementGiven"] is False and first["reconciledLines"] == 0

    # The fee recorded and reconciled, and the spend matched to its line: nothing stands between.
    ok(
        owner,
        "recordBankTransaction",
        {
            "direction": "spend",
            "bankAccountId": account.pk,
            "on": "2026-03-03",
            "financialId": fee.pk,
            "lines": [{"account": "6000", "amount": "12", "taxType": "NONE"}],
        },
    )
    parking = bank.financial_create(
        actor=owner, bank=account, fields={"date": date(2026, 3, 5), "amount": Decimal("-120.00")}
    )
    ok(
        owner,
        "matchPurchaseInvoiceLineToFinancial",
        {"financialIds": [parking.pk], "transactionIds": [spent["id"]]},
    )
    done = ok(people["viewer"], "getBankReconciliation", arguments)
    assert (done["statementBalance"], done["ledgerBalance"], done["difference"]) == (
        "868.00",
        "868.00",
        "0.00",
    )
    assert done["unmatched"] == [] and done["unreconciledPostings"] == [] and done["reconciledLines"] == 2

    given = ok(people["viewer"], "getBankReconciliation", {**arguments, "statementBalance": "870.00"})
    assert given["statementGiven"] is True and given["difference"] == "2.00"
    assert "asOf" in refused(people["viewer"], "getBankReconciliation", {"asOf": "March"})
    assert "listBankAccounts" in refused(people["viewer"], "getBankReconciliation", {"bankAccountId": 999999})


def test_the_page_shows_the_reconciliation_and_only_posters_record_suggestions(people, acme_client):
    from apps.accounting.services import bankrules

    owner = people["owner"]
    ledger.books()
    bankrules.rule_create(
        actor=owner,
        fields={"name": "Fees", "contains": "fee", "direction": "out", "account": "6000", "tax_type": "NONE"},
    )
    line = bank_line(owner, "-7.00", description="Monthly fee")

    acme_client.force_login(people["viewer"])
    page = acme_client.get("/settings/accounting/").content.decode()
    assert "Reconciliation of Bank current account" in page and "Monthly fee" in page
    assert "6000, NONE" in page and "Record as suggested" not in page
    assert acme_client.post(f"/settings/accounting/bank-lines/{line.pk}/record-suggested/").status_code == 403

    acme_client.force_login(owner)
    assert "Record as suggested" in acme_client.get("/settings/accounting/").content.decode()
    acme_client.post(f"/settings/accounting/bank-lines/{line.pk}/record-suggested/")
    line.refresh_from_db()
    assert line.match_id is not None
    row = BankTransaction.objects.get(match_id=line.match_id)
    assert (row.kind, row.amount, row.date) == ("spend", Decimal("-7.0000"), line.date)
    page = acme_client.get("/settings/accounting/").content.decode()
    assert "Every statement line is matched." in page


def test_the_page_matches_a_line_to_its_likely_invoice_and_undoes_it(people, acme_client):
    from apps.accounting.models import BankMatch, SalesDocument
    from apps.accounting.tests.factories import issued

    owner = people["owner"]
    invoice = issued(owner, customer="Matchpage Ltd", lines=[("Work", "53.17", "NONE")])
    line = bank_line(owner, "53.17", description="MATCHPAGE payment")
    match_url = f"/settings/accounting/bank-lines/{line.pk}/match/"
    target = {"target": f"invoice:{invoice.pk}", "closing": "1000.00", "on": "2026-03-31"}

    # A viewer sees the likely match but no button, and is refused.
    acme_client.force_login(people["viewer"])
    page = acme_client.get("/settings/accounting/").content.decode()
    assert f"{invoice.number} Matchpage Ltd (invoice" in page and match_url not in page
    assert acme_client.post(match_url, target).status_code == 403
    line.refresh_from_db()
    assert line.match_id is None

    # The closing balance the bank gives: the difference is against it; a figure that does not read is said.
    acme_client.force_login(owner)
    page = acme_client.get("/settings/accounting/?closing=1000.00&on=2026-03-31").content.decode()
    assert match_url in page and "as the bank gives it" in page and "1000.00 GBP" in page
    page = acme_client.get("/settings/accounting/?closing=lots&on=March").content.decode()
    assert "“lots” is not an amount." in page and "“March” is not a date" in page

    # A target that is not one is said; a bill that is not there is not found; nothing changes.
    answer = acme_client.post(match_url, {"target": "invoice:x"}, follow=True)
    assert answer.status_code == 200
    assert "name an invoice, bill, payment or bank transaction" in answer.content.decode()
    assert acme_client.post(match_url, {"target": "bill:99999999"}).status_code == 404
    # An amount that does not fit the invoice: the service's refusal is the page's message.
    short = bank_line(owner, "50.00", description="MATCHPAGE short")
    answer = acme_client.post(f"/settings/accounting/bank-lines/{short.pk}/match/", target, follow=True)
    assert answer.status_code == 200 and "amounts must tie" in answer.content.decode()
    line.refresh_from_db()
    assert line.match_id is None and not BankMatch.objects.exists()

    answer = acme_client.post(match_url, target)
    assert answer.status_code == 302
    query = f"?bank={line.bank_account_id}&on=2026-03-31&closing=1000.00#reconciliation"
    assert answer["Location"].endswith(query)
    line.refresh_from_db()
    invoice.refresh_from_db()
    assert line.match_id is not None and invoice.status == SalesDocument.Status.PAID

    # Matched already: the page says so and nothing more is posted.
    entries = JournalEntry.objects.count()
    answer = acme_client.post(match_url, target, follow=True)
    assert answer.status_code == 200 and "matched" in answer.content.decode()
    assert JournalEntry.objects.count() == entries and BankMatch.objects.count() == 1

    page = acme_client.get("/settings/accounting/").content.decode()
    assert "Recently matched" in page and "MATCHPAGE payment" in page and "Unmatch" in page
    acme_client.post(f"/settings/accounting/bank-matches/{line.match_id}/unmatch/")
    line.refresh_from_db()
    invoice.refresh_from_db()
    assert line.match_id is None and invoice.amount_paid == 0 and not BankMatch.objects.exists()
