"""Bank accounts, their transactions ("financials", one line of a bank statement each), and the
matches that tie financials to the lines of invoices and bills.

A financial is a fact of the bank's: entering or importing one posts nothing. A match posts (bank
against receivable or payable, through apps.accounting.lib.ledger.post) and locks what it ties: a
matched financial cannot be changed or deleted, and a matched invoice cannot be voided, until
the match is undone (its entries are then reversed). `external_id` is the bank's own id of the
line (OFX FITID, CAMT.053 AcctSvcrRef, MT940 bank reference) or, where a statement gives none, a
fingerprint of the line: a second import of the same statement skips what is already here.
"""

from decimal import Decimal

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounting.lib.money import round_money
from apps.accounting.models.bills import PurchaseBillLine
from apps.accounting.models.ledger import Account, JournalEntry, money_field
from apps.accounting.models.sales import Payment, SalesLine
from apps.accounting.permissions import AccountingPerm
from apps.core.records import Access, Record, name_once

USER = settings.AUTH_USER_MODEL


class BankAccount(Record):
    access = Access(
        AccountingPerm, visibility="workspace", label=_("Bank account"), find_with="listBankAccounts"
    )

    name = models.CharField(_("name"), max_length=120)
    currency = models.CharField(_("currency"), max_length=3)
    iban = models.CharField(_("IBAN"), max_length=34, blank=True)
    # The account number a statement names when it gives no IBAN (OFX ACCTID, MT940 :25:).
    number = models.CharField(_("account number"), max_length=40, blank=True)
    # Its account in the chart (role bank): what matches post to.
    account = models.OneToOneField(Account, on_delete=models.PROTECT, related_name="bank_account")

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("bank account")

    def __str__(self) -> str:
        return self.name


class BankMatch(models.Model):
    """Financials tied to lines of invoices (money in) or bills (money out): the financials' sum
    equals the lines' amounts. Its postings are the payments it recorded."""

    date = models.DateField(_("date"))
    currency = models.CharField(_("currency"), max_length=3)
    total = money_field()
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("bank match")
        verbose_name_plural = _("bank matches")

    def __str__(self) -> str:
        return f"match {self.pk}"


class Financial(Record):
    access = Access(AccountingPerm, visibility="workspace", label=_("Bank line"), find_with="listFinancials")

    class Source(models.TextChoices):
        MANUAL = "manual", _("entered by hand")
        CAMT053 = "camt053", _("CAMT.053 statement")
        MT940 = "mt940", _("MT940 statement")
        OFX = "ofx", _("OFX statement")
        CSV = "csv", _("CSV statement")

    bank_account = models.ForeignKey(BankAccount, on_delete=models.PROTECT, related_name="financials")
    date = models.DateField(_("date"))
    # Signed, in the bank account's currency: money in positive, money out negative.
    amount = money_field()
    description = models.CharField(_("description"), max_length=500, blank=True)
    counterparty = models.CharField(_("counterparty"), max_length=200, blank=True)
    reference = models.CharField(_("reference"), max_length=140, blank=True)
    source = models.CharField(_("source"), max_length=10, choices=Source.choices, default=Source.MANUAL)
    external_id = models.CharField(max_length=200, blank=True)
    match = models.ForeignKey(
        BankMatch, on_delete=models.SET_NULL, null=True, blank=True, related_name="financials"
    )

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("bank line")
        constraints = [
            models.UniqueConstraint(
                fields=["bank_account", "external_id"],
                condition=~Q(external_id=""),
                name="accounting_financial_once",
            ),
            models.CheckConstraint(condition=~Q(amount=0), name="accounting_financial_not_zero"),
        ]
        indexes = [models.Index(fields=["bank_account", "date"], name="accounting_financial_date")]

    def __str__(self) -> str:
        return f"{self.date} {self.amount}"

    @property
    def rounded_amount(self) -> Decimal:
        """The amount in its currency's minor units (the column keeps four places)."""
        return round_money(self.amount, self.bank_account.currency)


class MatchLine(models.Model):
    """What a match ties of one document line (an invoice's or a bill's; `amount` is a magnitude),
    and what it posted for the document: the Payment of an invoice, the entry of a bill."""

    match = models.ForeignKey(BankMatch, on_delete=models.CASCADE, related_name="lines")
    sales_line = models.ForeignKey(
        SalesLine, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    bill_line = models.ForeignKey(
        PurchaseBillLine, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    amount = money_field()
    payment = models.ForeignKey(Payment, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    entry = models.ForeignKey(JournalEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="+")

    class Meta:
        ordering = ["match_id", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="accounting_matchline_positive"),
            models.CheckConstraint(
                condition=Q(sales_line__isnull=True) ^ Q(bill_line__isnull=True),
                name="accounting_matchline_one_line",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}: {self.amount}"


class BankTransaction(Record):
    """Money spent or received without a document (Xero's "spend money" and "receive money"), or
    one side of a transfer between two bank accounts, with the entry it posted.

    `amount` is signed in the bank account's currency (money in positive). A transfer is two rows,
    its money out and its money in (`counterpart`), one entry when both accounts share a currency,
    else one each, the FX difference realised in the second. A statement line reconciles a row by
    a `BankMatch` with no document lines (`match`). A posted row is never edited: `void` posts the
    reversing entries (`reversal`) and keeps the row (`voided_at`)."""

    access = Access(
        AccountingPerm, visibility="workspace", label=_("Bank transaction"), find_with="listBankTransactions"
    )

    class Kind(models.TextChoices):
        SPEND = "spend", _("money spent")
        RECEIVE = "receive", _("money received")
        TRANSFER_OUT = "transfer_out", _("transfer out")
        TRANSFER_IN = "transfer_in", _("transfer in")

    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    bank_account = models.ForeignKey(BankAccount, on_delete=models.PROTECT, related_name="transactions")
    date = models.DateField(_("date"))
    amount = money_field()
    contact_name = models.CharField(_("paid to or received from"), max_length=200, blank=True)
    reference = models.CharField(_("reference"), max_length=140, blank=True)
    entry = models.ForeignKey(JournalEntry, on_delete=models.PROTECT, related_name="+")
    counterpart = models.OneToOneField(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    match = models.ForeignKey(
        BankMatch, on_delete=models.SET_NULL, null=True, blank=True, related_name="bank_transactions"
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    reversal = models.ForeignKey(
        JournalEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("bank transaction")
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="accounting_banktx_not_zero")]
        indexes = [models.Index(fields=["bank_account", "date"], name="accounting_banktx_date")]

    def __str__(self) -> str:
        return f"{self.kind} {self.date} {self.amount}"


class BankRule(Record):
    """Conditions on a statement line (words in its text, an amount range, a direction, a bank
    account) and what they suggest for it: a contact, an account and a tax type. A rule only
    suggests (the unmatched lines' listing shows it); it never posts anything by itself."""

    access = Access(AccountingPerm, visibility="workspace", label=_("Bank rule"), find_with="listBankRules")

    class Direction(models.TextChoices):
        ANY = "any", _("money in or out")
        IN = "in", _("money in")
        OUT = "out", _("money out")

    name = models.CharField(_("name"), max_length=120)
    # The first rule whose conditions hold wins: lower positions first.
    position = models.PositiveIntegerField(_("position"), default=0)
    bank_account = models.ForeignKey(
        BankAccount, on_delete=models.CASCADE, null=True, blank=True, related_name="rules"
    )
    direction = models.CharField(
        _("direction"), max_length=3, choices=Direction.choices, default=Direction.ANY
    )
    # Words that must all be in the line's description, counterparty or reference (case aside).
    contains = models.CharField(_("text contains"), max_length=200, blank=True)
    # Magnitudes, in the line's currency.
    amount_min = money_field(null=True, blank=True)
    amount_max = money_field(null=True, blank=True)
    contact_name = models.CharField(_("contact"), max_length=200, blank=True)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    tax_type = models.ForeignKey("accounting.TaxType", on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("bank rule")
        constraints = [name_once("accounting_bankrule_name_once")]

    def __str__(self) -> str:
        return self.name
