"""The ledger: one posting function, balanced in the entry's currency and in base currency,
guarded again by the database; lock dates; the trial balance; money's one rounding rule."""

from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.db import IntegrityError, InternalError, connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.accounting.errors import BaseCurrencyInUse, PeriodLocked, Unbalanced
from apps.accounting.lib import ledger, rates, tax
from apps.accounting.lib.money import Money, minor_units, round_money
from apps.accounting.models import Account, JournalEntry, JournalLine, TaxType
from apps.accounting.tests.factories import post_sale
from apps.core.errors import NoExchangeRate, ValidationFailed

pytestmark = pytest.mark.django_db

EUR_RATE = rates.Rate(Decimal("0.8512345678"), date(2026, 3, 2), "test")


def legs(*amounts: str, roles: tuple[str, ...] = ("receivable", "sales", "tax")) -> list[ledger.Leg]:
    return [
        ledger.Leg(ledger.account(role), Decimal(amount))
        for role, amount in zip(roles, amounts, strict=False)
    ]


def assert_balanced() -> None:
    balance = ledger.trial_balance()
    assert balance.total_debit == balance.total_credit
    for entry_id in JournalEntry.objects.values_list("pk", flat=True):
        lines = JournalLine.objects.filter(entry_id=entry_id)
        assert sum(line.amount for line in lines) == 0
        assert sum(line.base_amount for line in lines) == 0


# --- money ----------------------------------------------------------------------------------------


def test_minor_units_follow_iso_4217_and_rounding_is_half_up():
    assert (minor_units("EUR"), minor_units("JPY"), minor_units("KWD")) == (2, 0, 3)
    assert round_money(Decimal("0.125"), "EUR") == Decimal("0.13")
    assert round_money(Decimal("-0.125"), "EUR") == Decimal("-0.13")
    assert round_money(Decimal("1234.5"), "JPY") == Decimal("1235")
    assert round_money(Decimal("1.2345"), "KWD") == Decimal("1.235")
    assert str(Money.of("10.005", "eur")) == "10.01 EUR"


@pytest.mark.parametrize("code", ["XAU", "ABC", "EURO", ""])
def test_a_currency_that_holds_no_money_is_refused(code):
    with pytest.raises(ValidationFailed, match="ISO 4217"):
        Money.of("1", code)


# --- posting --------------------------------------------------------------------------------------


def test_a_posting_in_another_currency_stores_its_rate_and_balances_in_base(people):
    entry = ledger.post(
        journal="SAL",
        day=date(2026, 3, 2),
        currency="EUR",
        legs=legs("100.03", "-98.92", "-1.11"),
        actor=people["owner"],
        rate=EUR_RATE,
    )

    assert (entry.rate, entry.rate_date, entry.rate_source) == (EUR_RATE.value, EUR_RATE.day, "test")
    lines = list(entry.lines.select_related("account"))
    # Each leg converted and rounded alone leaves a penny: it goes to the rounding account.
    assert sum(line.base_amount for line in lines) == 0
    rounding = [line for line in lines if line.account.role == Account.Role.ROUNDING]
    assert len(rounding) == 1 and rounding[0].amount == 0 and abs(rounding[0].base_amount) == Decimal("0.01")
    assert_balanced()


def test_the_rate_of_the_day_comes_from_the_bundled_ecb_rates(people):
    entry = ledger.post(
        journal="SAL", day=date(2026, 3, 1), currency="USD", legs=legs("10", "-10"), actor=people["owner"]
    )

    # 1 March 2026 is a Sunday: the rate of Friday 27 February is used, and said.
    assert entry.rate_date == date(2026, 2, 27) and entry.rate_source == "ecb-bundled"
    assert Decimal("0.6") < entry.rate < Decimal("0.9")


def test_unbalanced_legs_are_refused_and_nothing_is_posted(people):
    with pytest.raises(Unbalanced, match=r"sum to 0\.01 GBP"):
        ledger.post(
            journal="SAL", day=date(2026, 3, 2), currency="GBP", legs=legs("10.01", "-10"), actor=None
        )
    with pytest.raises(Unbalanced, match="two"):
        ledger.post(journal="SAL", day=date(2026, 3, 2), currency="GBP", legs=legs("0", "0"), actor=None)

    assert not JournalEntry.objects.exists()


def test_the_database_refuses_an_unbalanced_entry_that_bypasses_the_posting_function(people):
    entry = post_sale(people["owner"])
    with pytest.raises(IntegrityError, match="does not balance"), transaction.atomic():
        JournalLine.objects.create(
            entry=entry,
            account=ledger.account(Account.Role.SALES),
            amount=Decimal("1"),
            base_amount=Decimal("1"),
        )
        ledger.check_balance_now()


def test_posted_lines_are_never_changed(people):
    entry = post_sale(people["owner"])
    with pytest.raises(IntegrityError, match="never changed"), transaction.atomic():
        JournalLine.objects.filter(entry=entry).update(description="edited")
    with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
        JournalLine.objects.filter(entry=entry).delete()


def test_nothing_posts_on_or_before_the_lock_date(people):
    books = ledger.books()
    books.lock_date = date(2026, 3, 31)
    books.save()

    with pytest.raises(PeriodLocked, match="2026-03-31"):
        post_sale(people["owner"], day=date(2026, 3, 31))
    post_sale(people["owner"], day=date(2026, 4, 1))


def test_a_reversal_undoes_an_entry_at_its_rate(people):
    entry = ledger.post(
        journal="SAL",
        day=date(2026, 3, 2),
        currency="EUR",
        legs=legs("100.03", "-98.92", "-1.11"),
        actor=None,
        rate=EUR_RATE,
    )
    reversal = ledger.reverse(entry, actor=None, day=date(2026, 3, 3))

    assert reversal.reverses == entry and reversal.rate == entry.rate
    assert ledger.trial_balance().rows == []


def test_the_base_currency_changes_only_while_nothing_is_posted(people):
    ledger.books_update(actor=people["owner"], base_currency="EUR")
    assert ledger.books().tax_regime == "EU VAT" and TaxType.objects.filter(code="EU-STD").exists()
    post_sale(people["owner"], tax_code="EU-STD", currency="EUR")

    with pytest.raises(BaseCurrencyInUse):
        ledger.books_update(actor=people["owner"], base_currency="USD")


def test_a_currency_without_a_rate_that_day_is_a_clear_error(people):
    with pytest.raises(NoExchangeRate, match="KWD/GBP"):
        ledger.post(
            journal="SAL", day=date(2026, 3, 2), currency="KWD", legs=legs("1.234", "-1.234"), actor=None
        )


# --- the property: random valid documents keep the ledger balanced after every step --------------

CURRENCIES = ["GBP", "EUR", "USD", "JPY", "CHF"]
TAX_CODES = ["UK-STD", "UK-RED", "UK-ZERO", "UK-EXEMPT", "UK-RC"]

line = st.tuples(
    st.decimals(min_value=Decimal("0.001"), max_value=Decimal("5000"), places=3),  # quantity
    st.decimals(min_value=Decimal("0.01"), max_value=Decimal("99999"), places=4),  # unit price
    st.sampled_from(TAX_CODES),
    st.decimals(min_value=Decimal(0), max_value=Decimal(100), places=2),  # discount
)
document = st.fixed_dictionaries(
    {
        "currency": st.sampled_from(CURRENCIES),
        "day": st.dates(min_value=date(2020, 1, 1), max_value=date(2026, 10, 30)),
        "inclusive": st.booleans(),
        "rounding": st.sampled_from(["line", "document"]),
        "lines": st.lists(line, min_size=1, max_size=6),
        "paid_percent": st.integers(min_value=0, max_value=100),
        "payment_currency": st.sampled_from(CURRENCIES),
        "days_to_payment": st.integers(min_value=0, max_value=120),
    }
)


def post_document(doc: dict) -> None:
    """A sales document (receivable, sales per tax type, tax) and a payment of part of it in any
    currency, the difference in base currency realised as FX gain or loss."""
    currency = doc["currency"]
    found = {code: TaxType.objects.get(code=code) for code in TAX_CODES}
    result = tax.breakdown(
        [tax.LineIn(Decimal(q), Decimal(p), found[code], Decimal(d)) for q, p, code, d in doc["lines"]],
        currency=currency,
        prices_include_tax=doc["inclusive"],
        rounding=doc["rounding"],
    )
    sale_legs = [ledger.Leg(ledger.account("receivable"), result.total)]
    for group in result.groups:
        sale_legs.append(ledger.Leg(ledger.account("sales"), -round_money(group.net, currency)))
        sale_legs.append(ledger.Leg(ledger.account("tax"), -round_money(group.tax, currency)))
    if result.total == 0:
        return  # a document of nothing posts nothing
    sale = ledger.post(journal="SAL", day=doc["day"], currency=currency, legs=sale_legs, actor=None)
    assert_balanced()

    paid = round_money(result.total * doc["paid_percent"] / 100, currency)
    if paid == 0:
        return
    # Paid within the bundled rates' range (they end on 30 October 2026).
    day = min(doc["day"] + timedelta(days=doc["days_to_payment"]), date(2026, 10, 30))
    # The receivable is settled at the invoice's rate; the bank receives at the payment's.
    cleared = round_money(paid * sale.rate, ledger.books().base_currency)
    payment = ledger.post(
        journal="BNK", day=day, currency=currency, actor=None,
        legs=[ledger.Leg(ledger.account("bank"), paid), ledger.Leg(ledger.account("receivable"), -paid)],
    )  # fmt: skip
    received = sum(line.base_amount for line in payment.lines.filter(account__role="bank"))
    difference = received - cleared
    if difference:
        ledger.post(
            journal="BNK", day=day, currency=currency, actor=None,
            rate=rates.Rate(payment.rate, day, "payment"),
            legs=[
                ledger.Leg(ledger.account("receivable"), Decimal(0), base_amount=difference),
                ledger.Leg(ledger.account("fx"), Decimal(0), base_amount=-difference),
            ],
        )  # fmt: skip
    assert_balanced()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents=st.lists(document, min_size=1, max_size=4))
def test_random_valid_documents_keep_the_ledger_balanced_after_every_step(acme, documents):
    ledger.books()
    with transaction.atomic():
        for doc in documents:
            post_document(doc)
        transaction.set_rollback(True)


# Manual journals (postJournal) and their reversals, by hand or on a day, among documents.
JOURNAL_ACCOUNTS = ["1300", "2300", "3000", "4100", "6000", "6100", "6200", "7900"]
journal = st.fixed_dictionaries(
    {
        "currency": st.sampled_from(CURRENCIES),
        "day": st.dates(min_value=date(2020, 1, 1), max_value=date(2026, 10, 1)),
        "pairs": st.lists(
            st.tuples(
                st.sampled_from(JOURNAL_ACCOUNTS),
                st.sampled_from(JOURNAL_ACCOUNTS),
                st.decimals(min_value=Decimal("0.01"), max_value=Decimal("99999"), places=2),
            ),
            min_size=1,
            max_size=4,
        ),
        "reversal": st.none() | st.tuples(st.booleans(), st.integers(min_value=1, max_value=29)),
    }
)


def post_journal(owner, doc: dict) -> None:
    """A manual journal of debit/credit pairs; reversed after some days, by hand or automatically."""
    from apps.accounting.services import journals

    currency = doc["currency"]
    lines = []
    for debit, credit, amount in doc["pairs"]:
        rounded = round_money(amount, currency)
        if rounded == 0:
            continue
        lines += [
            journals.JournalLineData(debit, debit=rounded),
            journals.JournalLineData(credit, credit=rounded),
        ]
    if not lines:
        return
    day, reversal = doc["day"], doc["reversal"]
    automatic = reversal is not None and reversal[0]
    reverse_on = day + timedelta(days=reversal[1]) if reversal is not None else None
    entry = journals.journal_post(
        actor=owner,
        day=day,
        narration="accrual",
        lines=lines,
        currency=currency,
        reverse_on=reverse_on if automatic else None,
    )
    assert_balanced()
    if reverse_on is not None and not automatic:
        journals.journal_reverse(actor=owner, entry=entry, day=reverse_on)
        assert_balanced()
    if reverse_on is not None:
        # Reversed: what the journal moved is back by the reversal's day, in both currencies.
        reversed_by = JournalEntry.objects.get(reverses=entry)
        assert reversed_by.date == reverse_on and reversed_by.rate == entry.rate
        lines_of = JournalLine.objects.filter(entry__in=[entry, reversed_by])
        assert sum(line.amount for line in lines_of) == 0 and sum(line.base_amount for line in lines_of) == 0


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    steps=st.lists(
        st.one_of(document.map(lambda d: ("document", d)), journal.map(lambda j: ("journal", j))),
        min_size=1,
        max_size=5,
    )
)
def test_manual_journals_and_their_reversals_keep_the_ledger_balanced_among_documents(people, steps):
    ledger.books()
    with transaction.atomic():
        for kind, step in steps:
            if kind == "document":
                post_document(step)
            else:
                post_journal(people["owner"], step)
        balance = ledger.trial_balance()
        assert balance.total_debit == balance.total_credit
        transaction.set_rollback(True)


def test_the_trial_balance_reads_the_ledger(people):
    post_sale(people["owner"], net="100.00")
    post_sale(people["owner"], net="50.00", day=date(2026, 4, 2))

    rows = {row.code: row for row in ledger.trial_balance().rows}
    assert rows["1100"].debit == Decimal("180.00") and rows["4000"].credit == Decimal("150.00")
    assert rows["2200"].credit == Decimal("30.00")
    march = {row.code: row for row in ledger.trial_balance(as_of=date(2026, 3, 31)).rows}
    assert march["1100"].debit == Decimal("120.00")
    # What the database checks at commit holds now too.
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


# --- the property through the services: credit, refunds, bill payments, voids and removed payments keep
# the books balanced, and the receivable and payable equal the amounts due ----------------------------

OPERATIONS = [
    "invoice",
    "credit",
    "allocate",
    "refund",
    "pay",
    "remove",
    "bill",
    "supplier_credit",
    "pay_bill",
    "void_bill",
    "revalue",
    "spend",
    "receive",
    "transfer",
    "void_bank_transaction",
]
step = st.tuples(
    st.sampled_from(OPERATIONS),
    st.integers(min_value=0, max_value=10**6),  # which document, and the price of a new one
    st.sampled_from(["GBP", "EUR"]),
    st.integers(min_value=1, max_value=100),  # the percent of what is open that is used
)


def _part(amount: Decimal, percent: int, currency: str) -> Decimal:
    return round_money(abs(amount) * percent / 100, currency)


def _pick(rows: list, pick: int):
    return rows[pick % len(rows)] if rows else None


def _bank_in(owner, currency: str):
    """The first live bank account in `currency`, added when there is none."""
    from apps.accounting.models import BankAccount
    from apps.accounting.services import bank

    bank.bank_account_get(actor=owner, bank_account_id=None)
    found = BankAccount.objects.live().filter(currency=currency).order_by("pk").first()
    return found or bank.bank_account_create(actor=owner, name=f"{currency} account", currency=currency)


def _bank_step(
    owner, day: date, operation: str, pick: int, currency: str, percent: int, price: Decimal
) -> None:
    """Money spent, received and transferred without a document, and voided (services.banking)."""
    from apps.accounting.models import BankTransaction
    from apps.accounting.services import banking

    if operation in ("spend", "receive"):
        account = "6000" if operation == "spend" else "4900"
        tax_code = ("UK-STD", "UK-RED", "NONE")[pick % 3]
        banking.transaction_record(
            actor=owner,
            bank=_bank_in(owner, currency),
            direction=operation,
            day=day,
            lines=[banking.LineData(account, price, tax_code, "Bank step")],
            prices_include_tax=bool(percent % 2),
        )
    elif operation == "transfer":
        source = _bank_in(owner, currency)
        target = _bank_in(owner, "EUR" if currency == "GBP" else "GBP") if pick % 2 else None
        if target is None:
            from apps.accounting.models import BankAccount
            from apps.accounting.services import bank

            target = BankAccount.objects.live().filter(currency=currency).exclude(pk=source.pk).first()
            target = target or bank.bank_account_create(
                actor=owner, name=f"{currency} savings", currency=currency
            )
        arrived = None
        if target.currency != source.currency:
            arrived = round_money(price * (Decimal(percent) / 50 + Decimal("0.5")), target.currency)
        banking.transfer(
            actor=owner, source=source, target=target, amount_out=price, amount_in=arrived, day=day
        )
    else:
        live = list(BankTransaction.objects.filter(voided_at__isnull=True, match__isnull=True).order_by("pk"))
        if live:
            banking.void(actor=owner, row=_pick(live, pick), day=day)


def _apply_step(owner, index: int, operation: str, pick: int, currency: str, percent: int) -> None:
    from apps.accounting.models import Payment, PurchaseBill, SalesDocument
    from apps.accounting.services import bills, payments, sales
    from apps.accounting.tests.factories import credited, issued, posted_bill

    day = date(2026, 3, 2) + timedelta(days=index)
    price = Decimal(pick % 200_000) / 100 + 1
    documents = SalesDocument.objects.select_for_update().order_by("pk")
    invoices = list(documents.filter(kind="invoice", status__in=sales.OPEN, currency=currency))
    notes = [
        n
        for n in documents.filter(kind="credit_note", status__in=sales.OPEN, currency=currency)
        if n.amount_due > 0
    ]
    posted = list(
        PurchaseBill.objects.order_by("pk").filter(status__in=("posted", "part_paid"), currency=currency)
    )
    if operation in ("spend", "receive", "transfer", "void_bank_transaction"):
        _bank_step(owner, day, operation, pick, currency, percent, round_money(price, currency))
    elif operation == "invoice":
        issued(owner, currency=currency, issue_date=day, lines=[("Work", str(price), "UK-STD")])
    elif operation == "credit":
        invoice = _pick(list(documents.filter(kind="invoice", status__in=(*sales.OPEN, "paid"))), pick)
        if invoice is not None:
            net = _part(invoice.net, percent, invoice.currency)
            if net > 0:
                credited(owner, invoice, price=str(net), day=day)
    elif operation == "allocate":
        note, invoice = _pick(notes, pick), _pick(invoices, pick)
        if note is not None and invoice is not None:
            amount = _part(min(note.amount_due, invoice.amount_due), percent, currency)
            if amount > 0:
                payments.allocate(actor=owner, note=note, invoice=invoice, amount=amount, day=day)
    elif operation == "refund":
        note = _pick(notes, pick)
        if note is not None and _part(note.amount_due, percent, currency) > 0:
            payments.refund(actor=owner, note=note, amount=_part(note.amount_due, percent, currency), day=day)
    elif operation == "pay":
        invoice = _pick(invoices, pick)
        if invoice is not None and _part(invoice.amount_due, percent, currency) > 0:
            sales.record_payment(
                actor=owner, document=invoice, amount=_part(invoice.amount_due, percent, currency), day=day
            )
    elif operation == "remove":
        live = list(Payment.objects.filter(removed_at__isnull=True).order_by("pk"))
        if live:
            payments.remove(
                actor=owner,
                payment=payments.payment_get(actor=owner, payment_id=_pick(live, pick).pk),
                day=day,
            )
    elif operation == "bill":
        posted_bill(
            owner, net=str(price), currency=currency, day=day, reference=f"B-{index}", tax_code="UK-STD"
        )
    elif operation == "supplier_credit":
        bill = _pick([b for b in posted if b.total > 0 and b.origin_id is None], pick)
        if bill is not None and _part(bill.net, percent, currency) > 0:
            credit, problems = bills.credit_create(
                actor=owner,
                bill=bill,
                reference=f"SC-{index}",
                issue_date=day,
                lines=[
                    bills.BillLineData("Credit", _part(bill.net, percent, currency), Decimal(1), "UK-STD")
                ],
            )
            if not problems:  # more than is left of the bill to credit: not posted
                bills.bill_post(actor=owner, bill=credit)
    elif operation == "pay_bill":
        bill = _pick([b for b in posted if b.amount_due], pick)
        if bill is not None and _part(bill.amount_due, percent, currency) > 0:
            payments.pay_bill(
                actor=owner, bill=bill, amount=_part(bill.amount_due, percent, currency), day=day
            )
    elif operation == "revalue":
        _revalue(owner, day)
    else:
        bill = _pick(
            [b for b in posted if b.status == "posted" and not b.amount_paid and not b.credits.exists()], pick
        )
        if bill is not None:
            bills.bill_void(actor=owner, bill=bill, day=day)


def _revalue(owner, day: date) -> None:
    """Revalues at `day` and checks the entry against the open euro documents valued by hand: the
    receivable moves by what open invoices gained, the payable by what open bills did."""
    from apps.accounting.models import PurchaseBill, SalesDocument
    from apps.accounting.services import revaluation, sales

    rate = rates.rate(source="EUR", target="GBP", on=day).value
    invoices = SalesDocument.objects.filter(kind="invoice", status__in=sales.OPEN, currency="EUR")
    open_bills = PurchaseBill.objects.filter(status__in=("posted", "part_paid"), currency="EUR", total__gt=0)
    gained = sum(
        (
            round_money(d.amount_due * rate, "GBP") - round_money(d.amount_due * d.rate, "GBP")
            for d in invoices
        ),
        Decimal(0),
    )
    owed = sum(
        (
            round_money(b.amount_due * rate, "GBP") - round_money(b.amount_due * b.rate, "GBP")
            for b in open_bills
        ),
        Decimal(0),
    )
    found = revaluation.revalue(actor=owner, day=day)
    if found.entry is None:
        assert gained == owed == 0
        return
    lines = found.entry.lines.all()
    assert sum(line.base_amount for line in lines if line.account.role == "receivable") == gained
    assert sum(line.base_amount for line in lines if line.account.role == "payable") == -owed
    assert all(line.amount == 0 for line in lines)
    assert revaluation.revalue(actor=owner, day=day).already  # once per day


def assert_control_accounts_are_the_amounts_due() -> None:
    from django.db.models import Sum

    from apps.accounting.models import PurchaseBill, SalesDocument

    for currency in ("GBP", "EUR"):
        lines = JournalLine.objects.filter(entry__currency=currency)
        receivable = lines.filter(account__role="receivable").aggregate(total=Sum("amount"))["total"] or 0
        payable = lines.filter(account__role="payable").aggregate(total=Sum("amount"))["total"] or 0
        issued_ = SalesDocument.objects.filter(currency=currency).exclude(status="draft")
        owed = sum((d.amount_due for d in issued_ if d.kind == "invoice"), Decimal(0))
        credit = sum((d.amount_due for d in issued_ if d.kind == "credit_note"), Decimal(0))
        bills = PurchaseBill.objects.filter(currency=currency).exclude(status__in=("proposal", "validated"))
        assert receivable == owed - credit
        assert -payable == sum((b.amount_due for b in bills), Decimal(0))
    # Every revaluation is reversed the next day: together they leave no account moved.
    revalued = JournalLine.objects.filter(entry__source="fx-revaluation").values("account")
    assert all(row["total"] == 0 for row in revalued.annotate(total=Sum("base_amount")))
    # Transfers between currencies pass through the clearing account, which nets to zero.
    clearing = JournalLine.objects.filter(account__name="Transfers between bank accounts")
    assert (clearing.aggregate(total=Sum("base_amount"))["total"] or 0) == 0


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=14))
def test_credit_refunds_bill_payments_voids_and_removed_payments_keep_the_books_tied(people, steps):
    owner = people["owner"]
    ledger.books()
    with transaction.atomic():
        for index, (operation, pick, currency, percent) in enumerate(steps):
            _apply_step(owner, index, operation, pick, currency, percent)
            assert_balanced()
            assert_control_accounts_are_the_amounts_due()
        transaction.set_rollback(True)
