"""Purchase bills (accounts payable): a supplier's invoice read from a file or typed in, its lines,
and the defaults a supplier's next bill starts from.

A bill is a `proposal` while it is being read and corrected (extracted from a PDF or a scan, or
made by hand), `validated` once its lines, accounts, tax types and totals check, and `posted` when
the payable is posted through the ledger (apps.accounting.services.bills, `ledger.post`); from then on it
is never edited (a void reverses its entry). `extracted_total` is the total the document states;
`total` is what the lines add up to: reconciling the two is a step of its own. Duplicate bills
are found by supplier + reference + total + issue date (the index below serves that look-up).
"""

from decimal import Decimal

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.models.ledger import Account, TaxType, Totalled, money_field
from apps.accounting.permissions import AccountingPerm
from apps.core.records import Access


class PurchaseBill(Totalled):
    access = Access(
        AccountingPerm,
        visibility="workspace",
        label=_("Purchase bill"),
        find_with="searchPurchaseInvoices",
        trash_state=_("deleted"),
    )

    class Status(models.TextChoices):
        PROPOSAL = "proposal", _("proposal")
        VALIDATED = "validated", _("validated")
        POSTED = "posted", _("posted")
        PART_PAID = "part_paid", _("part paid")
        PAID = "paid", _("paid")
        VOID = "void", _("void")

    class Source(models.TextChoices):
        MANUAL = "manual", _("typed in")
        TEXT = "text", _("read from the document's text")
        OCR = "ocr", _("read from a scan (OCR)")

    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.PROPOSAL)
    source = models.CharField(_("source"), max_length=10, choices=Source.choices, default=Source.MANUAL)
    supplier = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The supplier as the bill names them (copied from the contact, or read from the document).
    supplier_name = models.CharField(_("supplier"), max_length=200, blank=True)
    supplier_vat_number = models.CharField(_("supplier VAT number"), max_length=30, blank=True)
    # The supplier's own invoice number.
    reference = models.CharField(_("supplier reference"), max_length=100, blank=True)
    issue_date = models.DateField(_("issue date"), null=True, blank=True)
    # The document it was read from (a file of the Files area) and what was read.
    file = models.ForeignKey("files.File", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    extracted_text = models.TextField(blank=True)
    extracted_total = money_field(null=True, blank=True)
    extracted_tax = money_field(null=True, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)
    # Who posted it is on the entry (JournalEntry.posted_by).
    posted_at = models.DateTimeField(null=True, blank=True)
    # A supplier's credit note (negative total): the bill it corrects.
    origin = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="credits"
    )

    class Meta(Totalled.Meta):
        verbose_name = _("purchase bill")
        indexes = [
            models.Index(fields=["status"], name="accounting_bill_status"),
            models.Index(
                fields=["supplier_name", "reference", "total", "issue_date"], name="accounting_bill_duplicate"
            ),
        ]

    def __str__(self) -> str:
        return f"bill {self.reference or self.pk} from {self.supplier_name or '?'}"

    @property
    def is_posted(self) -> bool:
        return self.status in (self.Status.POSTED, self.Status.PART_PAID, self.Status.PAID)


class PurchaseBillLine(models.Model):
    """One line of a bill. Bank matching ties lines to bank transactions by their `gross`."""

    bill = models.ForeignKey(PurchaseBill, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveSmallIntegerField(default=0)
    description = models.CharField(_("description"), max_length=500)
    quantity = models.DecimalField(max_digits=19, decimal_places=6, default=1)
    unit_price = models.DecimalField(max_digits=19, decimal_places=6)
    account = models.ForeignKey(Account, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    tax_type = models.ForeignKey(TaxType, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    net = money_field(default=0)
    tax = money_field(default=0)

    class Meta:
        ordering = ["bill_id", "position", "id"]

    def __str__(self) -> str:
        return self.description

    @property
    def gross(self) -> Decimal:
        return self.net + self.tax


class SupplierDefaults(models.Model):
    """What a supplier's next bill starts from: set by hand or learned from the last bill posted.

    Keyed by the supplier's normalised name (`key`), with the contact when there is one."""

    key = models.CharField(max_length=200, unique=True)
    supplier_name = models.CharField(_("supplier"), max_length=200)
    supplier = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    vat_number = models.CharField(_("VAT number"), max_length=30, blank=True)
    currency = models.CharField(_("currency"), max_length=3, blank=True)
    account = models.ForeignKey(Account, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    tax_type = models.ForeignKey(TaxType, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    prices_include_tax = models.BooleanField(_("prices include tax"), null=True, blank=True)
    payment_terms_days = models.PositiveSmallIntegerField(_("payment terms (days)"), null=True, blank=True)
    bills_posted = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["supplier_name"]
        verbose_name = _("supplier defaults")
        verbose_name_plural = _("supplier defaults")
        constraints = [models.CheckConstraint(condition=~Q(key=""), name="accounting_supplier_key_set")]

    def __str__(self) -> str:
        return self.supplier_name
