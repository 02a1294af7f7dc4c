"""Sales documents (quotes, invoices, credit notes), their lines, and payments against them.

A document is a draft until it is approved: then it gets its number (gap-free per series: the
series' counter row is locked in the approving transaction, apps.accounting.services.sales) and is
posted to the ledger; from then on it is never edited or deleted (a credit note corrects it,
voiding reverses its entry). Totals are computed by apps.accounting.lib.tax when lines change.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounting.models.bills import PurchaseBill
from apps.accounting.models.ledger import Account, JournalEntry, TaxType, Totalled, money_field
from apps.accounting.permissions import AccountingPerm
from apps.core.records import Access, Record

USER = settings.AUTH_USER_MODEL


class SalesDocument(Totalled):
    access = Access(
        AccountingPerm,
        visibility="workspace",
        label=_("Sales document"),
        find_with="searchInvoices",
        trash_state=_("deleted"),
    )

    class Kind(models.TextChoices):
        QUOTE = "quote", _("quote")
        INVOICE = "invoice", _("invoice")
        CREDIT_NOTE = "credit_note", _("credit note")

    class Status(models.TextChoices):
        DRAFT = "draft", _("draft")
        APPROVED = "approved", _("approved")
        SENT = "sent", _("sent")
        PART_PAID = "part_paid", _("part paid")
        PAID = "paid", _("paid")
        VOID = "void", _("void")
        ACCEPTED = "accepted", _("accepted")
        DECLINED = "declined", _("declined")
        INVOICED = "invoiced", _("invoiced")

    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices)
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)
    # Empty until approved: then the series' next number, formatted ("INV-0042").
    number = models.CharField(_("number"), max_length=40, blank=True)
    contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The customer as the document names them (copied from the contact, or given).
    customer_name = models.CharField(_("customer"), max_length=200)
    customer_email = models.EmailField(_("customer e-mail"), max_length=254, blank=True)
    customer_address = models.TextField(_("customer address"), blank=True)
    customer_vat_number = models.CharField(_("customer VAT number"), max_length=30, blank=True)
    reference = models.CharField(_("reference"), max_length=100, blank=True)
    issue_date = models.DateField(_("issue date"))
    # The quote an invoice came from; the invoice a credit note corrects.
    origin = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="derived"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Credit control: reminders stop while disputed or snoozed.
    disputed = models.BooleanField(_("disputed"), default=False)
    snoozed_until = models.DateField(_("chase snoozed until"), null=True, blank=True)
    reminders_sent = models.PositiveSmallIntegerField(_("reminders sent"), default=0)
    last_reminded_on = models.DateField(_("last reminded"), null=True, blank=True)

    class Meta(Totalled.Meta):
        verbose_name = _("sales document")
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "number"], condition=~Q(number=""), name="accounting_document_number_once"
            ),
        ]
        indexes = [models.Index(fields=["kind", "status"], name="accounting_document_status")]

    def __str__(self) -> str:
        return self.number or f"draft {self.kind} {self.pk}"

    @property
    def is_draft(self) -> bool:
        return self.status == self.Status.DRAFT


class SalesLine(models.Model):
    document = models.ForeignKey(SalesDocument, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveSmallIntegerField(default=0)
    description = models.CharField(_("description"), max_length=500)
    quantity = models.DecimalField(max_digits=19, decimal_places=6)
    unit_price = models.DecimalField(max_digits=19, decimal_places=6)
    discount_percent = models.DecimalField(max_digits=7, decimal_places=4, default=0)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    tax_type = models.ForeignKey(TaxType, on_delete=models.PROTECT, related_name="+")
    net = money_field(default=0)
    tax = money_field(default=0)

    class Meta:
        ordering = ["document_id", "position", "id"]

    def __str__(self) -> str:
        return self.description


class Payment(models.Model):
    """Money received against an invoice, paid back on a credit note (a refund), or paid on a
    purchase bill (`bill`; a supplier's credit refunded: a negative amount), posted at the rate of
    its day; the difference to the document's rate is realised as an FX gain or loss in the same
    entry. `amount` is what it adds to the document's amount paid.

    A payment is reconciled when a bank match made it (a `MatchLine` names it) or was tied to it
    afterwards (`reconciled_by`). Removing one reverses its entry (`reversal`, never an edit) and
    keeps the row (`removed_at`)."""

    document = models.ForeignKey(
        SalesDocument, on_delete=models.PROTECT, null=True, blank=True, related_name="payments"
    )
    bill = models.ForeignKey(
        PurchaseBill, on_delete=models.PROTECT, null=True, blank=True, related_name="payments"
    )
    date = models.DateField(_("date"))
    amount = money_field()
    currency = models.CharField(max_length=3)
    reference = models.CharField(_("reference"), max_length=100, blank=True)
    bank_account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    entry = models.OneToOneField(JournalEntry, on_delete=models.PROTECT, related_name="+")
    # Realised in base currency: positive a gain, negative a loss.
    fx_gain = money_field()
    recorded_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    recorded_at = models.DateTimeField(auto_now_add=True)
    # The bank match that reconciled this payment, recorded without a bank line, afterwards.
    reconciled_by = models.ForeignKey(
        "accounting.BankMatch",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reconciled_payments",
    )
    removed_at = models.DateTimeField(null=True, blank=True)
    reversal = models.OneToOneField(
        JournalEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["date", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(document__isnull=True) ^ Q(bill__isnull=True),
                name="accounting_payment_one_document",
            ),
        ]

    def __str__(self) -> str:
        return f"payment {self.pk} on {self.document_id or self.bill_id}"

    @property
    def paid(self) -> "SalesDocument | PurchaseBill":
        """The document it pays: an invoice, a credit note (a refund) or a bill."""
        found: SalesDocument | PurchaseBill | None = self.document if self.document_id else self.bill
        assert found is not None
        return found


class CreditAllocation(models.Model):
    """Part of a credit note's credit applied to another open invoice of its customer, in its
    currency: both count it as paid. Where the two were posted at different rates, `entry` moves
    the receivable between them in base currency and realises the difference as FX."""

    note = models.ForeignKey(SalesDocument, on_delete=models.PROTECT, related_name="allocations")
    invoice = models.ForeignKey(SalesDocument, on_delete=models.PROTECT, related_name="credits_applied")
    date = models.DateField(_("date"))
    amount = money_field()
    entry = models.OneToOneField(
        JournalEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["date", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="accounting_allocation_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.amount} of {self.note_id} on {self.invoice_id}"


class Charge(Record):
    """Billable work or an expense to re-bill, not yet on an invoice ("unclaimed") until it is put
    on a draft invoice as a line (then `invoice` names it) or written off."""

    access = Access(
        AccountingPerm, visibility="workspace", label=_("Charge"), find_with="listUnclaimedCharges"
    )

    class Status(models.TextChoices):
        UNCLAIMED = "unclaimed", _("not invoiced")
        INVOICED = "invoiced", _("on an invoice")
        WRITTEN_OFF = "written_off", _("written off")

    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.UNCLAIMED)
    contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    customer_name = models.CharField(_("customer"), max_length=200)
    description = models.CharField(_("description"), max_length=500)
    date = models.DateField(_("date"))
    quantity = models.DecimalField(max_digits=19, decimal_places=6)
    unit_price = models.DecimalField(max_digits=19, decimal_places=6)
    currency = models.CharField(_("currency"), max_length=3)
    tax_type = models.ForeignKey(TaxType, on_delete=models.PROTECT, related_name="+")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="+")
    invoice = models.ForeignKey(
        SalesDocument, on_delete=models.SET_NULL, null=True, blank=True, related_name="charges"
    )

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name = _("charge")
        indexes = [models.Index(fields=["status", "contact"], name="accounting_charge_status")]

    def __str__(self) -> str:
        return self.description


class SentMail(models.Model):
    """An e-mail the area sent (an invoice, a reminder, a statement), as sent."""

    class Kind(models.TextChoices):
        DOCUMENT = "document", _("document")
        REMINDER = "reminder", _("reminder")
        STATEMENT = "statement", _("statement")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    document = models.ForeignKey(
        SalesDocument, on_delete=models.CASCADE, null=True, blank=True, related_name="mails"
    )
    recipient = models.EmailField(_("recipient"), max_length=254)
    subject = models.CharField(_("subject"), max_length=300)
    attachment = models.CharField(_("attachment"), max_length=200, blank=True)
    sent_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    sent_at = models.DateTimeField(_("sent"), auto_now_add=True)

    class Meta:
        ordering = ["-sent_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} mail {self.pk}"
