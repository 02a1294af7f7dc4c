"""Reads of the Accounting area that are domain: what needs attention."""

from django.db.models import Count, Q
from django.utils import timezone

from apps.accounting.models import Charge, SalesDocument, SyncRecord
from apps.accounting.services.sales import OPEN
from apps.core.actors import Actor


def attention(*, actor: Actor) -> list[str]:
    """Overdue invoices, drafts waiting for approval, disputes, charges not yet invoiced and
    records the outside ledger refused."""
    today = timezone.localdate()
    documents = SalesDocument.objects.restrict(actor).filter(kind=SalesDocument.Kind.INVOICE)
    counts = documents.aggregate(
        overdue=Count("pk", filter=Q(status__in=OPEN, due_date__lt=today)),
        drafts=Count("pk", filter=Q(status=SalesDocument.Status.DRAFT)),
        disputed=Count("pk", filter=Q(status__in=OPEN, disputed=True)),
    )
    unclaimed = Charge.objects.restrict(actor).filter(status=Charge.Status.UNCLAIMED).count()
    found = []
    if counts["overdue"]:
        found.append(
            f"{counts['overdue']} overdue invoice(s): searchInvoices with overdue, then sendInvoiceReminders."
        )
    if counts["drafts"]:
        found.append(f"{counts['drafts']} draft invoice(s) waiting for approveInvoice.")
    if counts["disputed"]:
        found.append(f"{counts['disputed']} disputed invoice(s).")
    if unclaimed:
        found.append(f"{unclaimed} charge(s) not invoiced yet: listUnclaimedCharges.")
    failed = SyncRecord.objects.filter(status=SyncRecord.Status.FAILED).count()
    if failed:
        found.append(f"{failed} record(s) failed to sync to the outside ledger: getAccountingSyncErrors.")
    return found
