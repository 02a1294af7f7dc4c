"""Sync to an outside ledger: every approved invoice and credit note, posted bill and recorded
payment is pushed to the workspace's outside ledger (apps.accounting.providers.xero), retried with backoff.

- `queue(record)` is the one call the services make when a document is approved, voided, a bill
  posted or a payment recorded: it keeps a `SyncRecord` (pending) and, once the transaction
  commits, asks a worker to push the workspace (`push_workspace`). The periodic sweep
  (`sweep`, every five minutes) pushes what is due in every workspace, so nothing waits on the
  broker.
- A push sends the record's element with an idempotency key (kind, id, version): pushed twice
  after a lost answer, the outside ledger keeps one. The remote id is stored; a later push of
  the same record (a void) updates it.
- Failures: a validation error (HTTP 400) fails the record until someone fixes the cause and
  retries it (`retry`, retryAccountingSyncs); a 5xx or an unreachable provider fails it with a
  backoff (`BACKOFF`), retried by the sweep up to `MAX_ATTEMPTS`; a rate limit (429) leaves it
  pending and holds the workspace's pushes for the Retry-After; a refused token stops the run.
- A payment waits for its invoice's (or bill's) remote id; a document with a contact pushes the
  contact first (`Contacts`), one without names its customer.

With no provider configured (ATRIUM_ACCOUNTING_SYNC_TOKEN empty) records are still kept, so
turning sync on later pushes the books from where they are; nothing is pushed until then.
"""

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.apps import apps as django_apps
from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounting.errors import SyncNotConfigured
from apps.accounting.models import (
    Account,
    JournalEntry,
    Payment,
    PurchaseBill,
    SalesDocument,
    SyncRecord,
    SyncRun,
)
from apps.accounting.permissions import AccountingPerm
from apps.accounting.providers import xero
from apps.core.actors import Actor, require
from apps.core.db import connection
from apps.core.errors import invalid

logger = logging.getLogger(__name__)
Kind = SyncRecord.Kind
Status = SyncRecord.Status
# Seconds to wait after the n-th failure of a provider that failed (not the data): 1 min, 5 min,
# 15 min, 1 h, 3 h, then 6 h; after MAX_ATTEMPTS only retryAccountingSyncs pushes it again.
BACKOFF = (60, 300, 900, 3600, 3 * 3600, 6 * 3600)
MAX_ATTEMPTS = 8
# Documents before the payments that need their remote ids.
ORDER: dict[str, int] = {
    Kind.CONTACT: 0,
    Kind.INVOICE: 1,
    Kind.CREDIT_NOTE: 1,
    Kind.BILL: 1,
    Kind.PAYMENT: 2,
    Kind.BILL_PAYMENT: 2,
}
RUN_SIZE = 200
KEPT_RUNS = 100


def provider() -> xero.Provider | None:
    """The configured outside ledger, or None (sync is off)."""
    token = settings.ATRIUM_ACCOUNTING_SYNC_TOKEN
    if not token or settings.ATRIUM_ACCOUNTING_SYNC_PROVIDER != "xero":
        return None
    return xero.Xero(
        url=settings.ATRIUM_ACCOUNTING_SYNC_URL, token=token, tenant=settings.ATRIUM_ACCOUNTING_SYNC_TENANT
    )


# --- queueing (the services' one call) ----------------------------------------------------------


def queue(record: SalesDocument | PurchaseBill | Payment | JournalEntry) -> None:
    """Marks a document, bill, payment or bill payment (its JournalEntry) as changed for the
    outside ledger. Quotes stay here."""
    if isinstance(record, SalesDocument):
        if record.kind == SalesDocument.Kind.QUOTE:
            return
        kind = Kind.INVOICE if record.kind == SalesDocument.Kind.INVOICE else Kind.CREDIT_NOTE
    elif isinstance(record, PurchaseBill):
        kind = Kind.BILL
    elif isinstance(record, Payment):
        kind = Kind.PAYMENT
        if record.removed_at is not None:
            # Removed before it was pushed: nothing to tell the outside ledger.
            gone = SyncRecord.objects.filter(kind=kind, record_id=record.pk, remote_id="")
            if gone.delete()[0]:
                return
    else:
        kind = Kind.BILL_PAYMENT
    found, made = SyncRecord.objects.get_or_create(kind=kind, record_id=record.pk)
    if not made and found.status != Status.PENDING:
        # Changed since it was pushed (or failed): push it again, under a new idempotency key.
        found.status, found.version, found.attempts = Status.PENDING, found.version + 1, 0
        found.next_attempt_at = None
        found.save(update_fields=["status", "version", "attempts", "next_attempt_at", "updated_at"])
    if provider() is not None:
        schema = connection.schema_name
        transaction.on_commit(lambda: _push_later(schema))


def _push_later(schema_name: str) -> None:
    # The task module calls the services: imported here, where it is used, it is no import cycle.
    from apps.accounting.tasks import push_workspace

    try:
        push_workspace.apply_async(kwargs={"schema_name": schema_name})
    except Exception:
        logger.exception("sync push could not be queued; the sweep will push it")


# --- what is pushed -----------------------------------------------------------------------------


class Waiting(Exception):
    """The record needs another one pushed first (a payment its invoice)."""


def _numbers(payload: dict[str, Any]) -> dict[str, Any]:
    # Amounts are Decimals; JSON numbers with their shortest exact form (two to four places).
    return json.loads(json.dumps(payload, default=_number))


def _number(value: Any) -> Any:
    return float(value) if isinstance(value, Decimal) else str(value)


def _remote_of(kind: str, record_id: int, label: str) -> str:
    found = SyncRecord.objects.filter(kind=kind, record_id=record_id, status=Status.SYNCED).first()
    if found is None or not found.remote_id:
        raise Waiting(_("waits for %(label)s to be pushed first") % {"label": label})
    return found.remote_id


def _contact(provider: xero.Provider, contact: Any, name: str, email: str, vat: str) -> dict[str, Any]:
    """The element's Contact: the pushed contact's id, or the name the document gives."""
    if contact is None:
        return {"Name": name}
    record, _made = SyncRecord.objects.get_or_create(kind=Kind.CONTACT, record_id=contact.pk)
    if record.status == Status.SYNCED and record.remote_id:
        return {"ContactID": record.remote_id}
    element = {"Name": contact.display_name or name, "EmailAddress": contact.email or email, "TaxNumber": vat}
    if record.remote_id:
        element["ContactID"] = record.remote_id
    failure = _attempt(provider, record, "Contacts", {k: v for k, v in element.items() if v})
    if failure is not None:
        raise xero.PushFailed(
            _("its contact: %(error)s") % {"error": failure.message},
            permanent=failure.permanent,
            retry_after=failure.retry_after,
            stop=failure.stop,
        )
    return {"ContactID": record.remote_id}


def _line_items(lines: Any, sign: int = 1) -> list[dict[str, Any]]:
    items = []
    for line in lines:
        item: dict[str, Any] = {
            "Description": line.description,
            "Quantity": line.quantity,
            "UnitAmount": sign * line.unit_price,
            "LineAmount": sign * line.net,
        }
        if getattr(line, "discount_percent", 0):
            item["DiscountRate"] = line.discount_percent
        if line.account is not None:
            item["AccountCode"] = line.account.code
        if line.tax_type is not None:
            item["TaxType"] = line.tax_type.code
        items.append(item)
    return items


def _sales_element(provider: xero.Provider, record: SyncRecord) -> tuple[str, dict[str, Any]]:
    document = SalesDocument.objects.select_related("contact").get(pk=record.record_id)
    credit = document.kind == SalesDocument.Kind.CREDIT_NOTE
    element: dict[str, Any] = {
        "Type": "ACCRECCREDIT" if credit else "ACCREC",
        "CreditNoteNumber" if credit else "InvoiceNumber": document.number,
        "Reference": document.reference,
        "Contact": _contact(
            provider,
            document.contact,
            document.customer_name,
            document.customer_email,
            document.customer_vat_number,
        ),
        "Date": document.issue_date.isoformat(),
        "CurrencyCode": document.currency,
        "LineAmountTypes": "Inclusive" if document.prices_include_tax else "Exclusive",
        "Status": "VOIDED" if document.status == SalesDocument.Status.VOID else "AUTHORISED",
        "LineItems": _line_items(document.lines.select_related("account", "tax_type")),
    }
    if document.due_date and not credit:
        element["DueDate"] = document.due_date.isoformat()
    if record.remote_id:
        element["CreditNoteID" if credit else "InvoiceID"] = record.remote_id
    return ("CreditNotes" if credit else "Invoices"), element


def _bill_element(provider: xero.Provider, record: SyncRecord) -> tuple[str, dict[str, Any]]:
    bill = PurchaseBill.objects.select_related("supplier").get(pk=record.record_id)
    # A bill with a negative total is the supplier's credit: a credit note with positive lines.
    credit = bill.total < 0
    element: dict[str, Any] = {
        "Type": "ACCPAYCREDIT" if credit else "ACCPAY",
        "CreditNoteNumber" if credit else "InvoiceNumber": bill.reference,
        "Contact": _contact(provider, bill.supplier, bill.supplier_name, "", bill.supplier_vat_number),
        "Date": bill.issue_date.isoformat() if bill.issue_date else None,
        "CurrencyCode": bill.currency,
        "LineAmountTypes": "Inclusive" if bill.prices_include_tax else "Exclusive",
        "Status": "VOIDED" if bill.status == PurchaseBill.Status.VOID else "AUTHORISED",
        "LineItems": _line_items(bill.lines.select_related("account", "tax_type"), -1 if credit else 1),
    }
    if bill.due_date and not credit:
        element["DueDate"] = bill.due_date.isoformat()
    if record.remote_id:
        element["CreditNoteID" if credit else "InvoiceID"] = record.remote_id
    return ("CreditNotes" if credit else "Invoices"), element


def _payment_element(record: SyncRecord) -> tuple[str, dict[str, Any]]:
    payment = Payment.objects.select_related("document", "bill", "bank_account").get(pk=record.record_id)
    if payment.removed_at is not None and record.remote_id:
        # A removed payment is deleted in the outside ledger too.
        return "Payments", {"PaymentID": record.remote_id, "Status": "DELETED"}
    if payment.bill is not None:
        bill = payment.bill
        remote = _remote_of(Kind.BILL, bill.pk, _("bill %(id)s") % {"id": bill.pk})
        # A supplier's credit (a negative total) is a credit note there.
        target = "CreditNote" if bill.total < 0 else "Invoice"
    else:
        document = payment.document
        assert document is not None
        credit = document.kind == SalesDocument.Kind.CREDIT_NOTE
        kind = Kind.CREDIT_NOTE if credit else Kind.INVOICE
        remote = _remote_of(kind, document.pk, _("invoice %(number)s") % {"number": document.number})
        target = "CreditNote" if credit else "Invoice"
    return "Payments", {
        target: {f"{target}ID": remote},
        "Account": {"Code": payment.bank_account.code},
        "Date": payment.date.isoformat(),
        "Amount": abs(payment.amount),
        "Reference": payment.reference,
    }


def _bill_payment_element(record: SyncRecord) -> tuple[str, dict[str, Any]]:
    entry = JournalEntry.objects.get(pk=record.record_id)
    bill_id = int(entry.source.partition(":")[2])
    lines = list(entry.lines.select_related("account"))
    payable = next(line for line in lines if line.account.role == Account.Role.PAYABLE)
    bank = next(line for line in lines if line.account.role == Account.Role.BANK)
    remote = _remote_of(Kind.BILL, bill_id, _("bill %(id)s") % {"id": bill_id})
    # Paying a bill debits the payable; a supplier's refund of a credit credits it.
    target = {"InvoiceID": remote} if payable.amount > 0 else {"CreditNoteID": remote}
    return "Payments", {
        "Invoice" if payable.amount > 0 else "CreditNote": target,
        "Account": {"Code": bank.account.code},
        "Date": entry.date.isoformat(),
        "Amount": abs(payable.amount),
        "Reference": entry.memo[:255],
    }


def _element(provider: xero.Provider, record: SyncRecord) -> tuple[str, dict[str, Any]]:
    if record.kind in (Kind.INVOICE, Kind.CREDIT_NOTE):
        return _sales_element(provider, record)
    if record.kind == Kind.BILL:
        return _bill_element(provider, record)
    if record.kind == Kind.PAYMENT:
        return _payment_element(record)
    if record.kind == Kind.BILL_PAYMENT:
        return _bill_payment_element(record)
    model: Any = django_apps.get_model("contacts", "Contact")
    contact = model._base_manager.filter(pk=record.record_id).first()
    if contact is None:
        raise xero.PushFailed(_("the contact no longer exists"), permanent=True)
    element = {"Name": contact.display_name, "EmailAddress": contact.email}
    if record.remote_id:
        element["ContactID"] = record.remote_id
    return "Contacts", {key: value for key, value in element.items() if value}


# --- pushing ------------------------------------------------------------------------------------


def _attempt(
    provider: xero.Provider,
    record: SyncRecord,
    collection: str | None = None,
    element: dict[str, Any] | None = None,
    *,
    now: datetime | None = None,
) -> xero.PushFailed | None:
    """Pushes one record and keeps the outcome on it; returns the failure, if any."""
    now = now or timezone.now()
    try:
        if collection is None or element is None:
            collection, element = _element(provider, record)
        remote = provider.push(
            collection, _numbers(element), key=f"atrium-{record.kind}-{record.record_id}-v{record.version}"
        )
    except Waiting as waiting:
        record.status, record.last_error, record.next_attempt_at = Status.PENDING, str(waiting), None
        record.save(update_fields=["status", "last_error", "next_attempt_at", "updated_at"])
        return None
    except xero.PushFailed as failure:
        if failure.retry_after is not None:
            # A rate limit is no fault of the record: it stays pending, due after the wait.
            record.status, record.last_error = Status.PENDING, failure.message
            record.next_attempt_at = now + timedelta(seconds=failure.retry_after)
        else:
            record.status, record.last_error = Status.FAILED, failure.message
            record.attempts += 1
            backoff = BACKOFF[min(record.attempts, len(BACKOFF)) - 1]
            retried = not failure.permanent and record.attempts < MAX_ATTEMPTS
            record.next_attempt_at = now + timedelta(seconds=backoff) if retried else None
        record.save(update_fields=["status", "last_error", "attempts", "next_attempt_at", "updated_at"])
        logger.info("sync of %s %s failed (attempt %s)", record.kind, record.record_id, record.attempts)
        return failure
    record.status, record.remote_id, record.last_error = Status.SYNCED, remote, ""
    record.next_attempt_at, record.synced_at = None, now
    record.save(
        update_fields=["status", "remote_id", "last_error", "next_attempt_at", "synced_at", "updated_at"]
    )
    return None


def held_until(now: datetime | None = None) -> datetime | None:
    """When a provider's rate limit lets the workspace push again (None: it may now)."""
    last = SyncRun.objects.exclude(hold_until=None).order_by("-hold_until").first()
    if last is not None and last.hold_until and last.hold_until > (now or timezone.now()):
        return last.hold_until
    return None


def due(now: datetime | None = None) -> QuerySet[SyncRecord]:
    """What the sweep pushes: pending records due, and failed ones whose backoff is over."""
    now = now or timezone.now()
    pending = Q(status=Status.PENDING) & (Q(next_attempt_at=None) | Q(next_attempt_at__lte=now))
    return SyncRecord.objects.filter(pending | Q(status=Status.FAILED, next_attempt_at__lte=now))


def run(ids: list[int], provider: xero.Provider) -> SyncRun:
    """Pushes the records `ids` (documents before payments), each under its row lock; a record
    another run holds is left to it. Stops at a rate limit or a refused token."""
    now = timezone.now()
    made = SyncRun.objects.create(provider=provider.name, started_at=now)
    kinds = dict(SyncRecord.objects.filter(pk__in=ids).values_list("pk", "kind"))
    for pk in sorted(kinds, key=lambda pk: (ORDER[kinds[pk]], pk)):
        with transaction.atomic():
            record = SyncRecord.objects.select_for_update(skip_locked=True).filter(pk=pk).first()
            if record is None or record.status == Status.SYNCED:
                continue
            failure = _attempt(provider, record, now=timezone.now())
        if record.status == Status.SYNCED:
            made.pushed += 1
        elif failure is not None and failure.retry_after is None:
            made.failed += 1
        if failure is not None and failure.stop:
            made.stopped = failure.message[:300]
            if failure.retry_after is not None:
                made.hold_until = timezone.now() + timedelta(seconds=failure.retry_after)
            break
    made.finished_at = timezone.now()
    made.save()
    # The runs are a recent history (the status's last run, a rate limit's hold), not a log.
    SyncRun.objects.filter(pk__in=list(SyncRun.objects.values_list("pk", flat=True)[KEPT_RUNS:])).delete()
    logger.info("sync run %s: %s pushed, %s failed", made.pk, made.pushed, made.failed)
    return made


def push_due() -> SyncRun | None:
    """One push of what is due in the current workspace (None: sync is off, held, or nothing due)."""
    found = provider()
    if found is None or held_until() is not None:
        return None
    ids = list(due().order_by("id").values_list("pk", flat=True)[:RUN_SIZE])
    return run(ids, found) if ids else None


# --- the tools' reads and retry ------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    provider: str
    counts: dict[str, int]
    last_run: SyncRun | None
    held_until: datetime | None


def state(*, actor: Actor) -> State:
    require(actor, AccountingPerm.VIEW)
    found = provider()
    grouped = SyncRecord.objects.order_by().values("status").annotate(n=Count("id"))
    counts = {row["status"]: row["n"] for row in grouped}
    return State(
        provider=found.name if found else "",
        counts={status: counts.get(status, 0) for status in Status.values},
        last_run=SyncRun.objects.first(),
        held_until=held_until(),
    )


def failures(*, actor: Actor, kind: str | None = None) -> QuerySet[SyncRecord]:
    require(actor, AccountingPerm.VIEW)
    rows = SyncRecord.objects.filter(status=Status.FAILED)
    return rows.filter(kind=kind) if kind else rows


def retry(*, actor: Actor, ids: list[int] | None) -> tuple[list[SyncRecord], SyncRun | None]:
    """Puts failed records (all, or `ids`) back to pending and pushes them now. Returns them, as
    they are after the push, and the run (None while a rate limit holds pushes)."""
    require(actor, AccountingPerm.POST)
    found = provider()
    if found is None:
        raise SyncNotConfigured()
    rows = SyncRecord.objects.select_for_update().filter(status=Status.FAILED)
    if ids is not None:
        picked = {record.pk: record for record in rows.filter(pk__in=ids)}
        missing = [str(pk) for pk in ids if pk not in picked]
        if missing:
            raise invalid(
                "ids",
                _("{ids}: no failed sync record with that id; getAccountingSyncErrors lists them"),
                ids=", ".join(missing),
            )
        records = list(picked.values())
    else:
        records = list(rows[:RUN_SIZE])
    for record in records:
        record.status, record.attempts, record.next_attempt_at = Status.PENDING, 0, None
        record.save(update_fields=["status", "attempts", "next_attempt_at", "updated_at"])
    if not records or held_until() is not None:
        return records, None
    made = run([record.pk for record in records], found)
    return [SyncRecord.objects.get(pk=record.pk) for record in records], made


def page(*, actor: Actor) -> dict[str, Any]:
    """What the Accounting page shows of sync: the state and the latest failures."""
    return {
        "state": state(actor=actor),
        "failures": failures(actor=actor).order_by("-updated_at", "-id")[:20],
    }
