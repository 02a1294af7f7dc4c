"""Writes of the Accounting area: sales documents (quotes, invoices, credit notes) and payments.

Every function runs inside the tool call's one transaction; whatever it posts goes through
`ledger.post`. Numbers are given at approval from the series' counter row, locked
(`SELECT ... FOR UPDATE`) in the same transaction: two approvals wait for each other, and a
rollback gives the number back, so a series has no gaps (never a PostgreSQL sequence, whose
numbers a rollback loses).
"""

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import (
    CreditNoteBeforeInvoice,
    CreditNoteCurrency,
    NegativeTotal,
    NotDraft,
    WrongStatus,
)
from apps.accounting.lib import identifiers, ledger, rates, tax
from apps.accounting.lib.money import currency_code, round_money
from apps.accounting.models import Account, Charge, NumberSeries, Payment, SalesDocument, TaxType
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import sync
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import RecordNotFound, invalid
from apps.core.records import Action

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
Kind = SalesDocument.Kind
Status = SalesDocument.Status
LABELS: dict[str, Any] = {
    Kind.QUOTE: _("Quote"),
    Kind.INVOICE: _("Invoice"),
    Kind.CREDIT_NOTE: _("Credit note"),
}
FIND_WITH: dict[str, str] = {
    Kind.QUOTE: "searchQuotes",
    Kind.INVOICE: "searchInvoices",
    Kind.CREDIT_NOTE: "searchInvoices",
}
# What counts as "issued": approved and after, until paid or void.
OPEN = (Status.APPROVED, Status.SENT, Status.PART_PAID)


@dataclass(frozen=True)
class LineData:
    description: str
    unit_price: Decimal
    tax_type: str
    quantity: Decimal = Decimal(1)
    discount_percent: Decimal = ZERO
    account: str | None = None  # an account code; default: the sales account


def wrong_status(document: SalesDocument, wanted: Any) -> WrongStatus:
    """WRONG_STATUS for a sales document that is not `wanted` (a translatable phrase) for this."""
    return WrongStatus(
        label=LABELS[document.kind], id=document.pk, status=document.get_status_display(), wanted=wanted
    )


def document_get(*, actor: Actor, kind: str, document_id: int, action: Action = "view") -> SalesDocument:
    """The document of `kind` with that id, or not found (another kind's id is not found too)."""
    rows = SalesDocument.objects.filter(kind__in=_kinds(kind)).select_related("entry")
    try:
        return rows.fetch(actor, document_id, action, lock=action != "view")
    except RecordNotFound:
        raise RecordNotFound(label=LABELS[kind], id=document_id, find_with=FIND_WITH[kind]) from None


def _kinds(kind: str) -> tuple[str, ...]:
    # Credit notes are found where invoices are (searchInvoices, getInvoice).
    return (Kind.INVOICE, Kind.CREDIT_NOTE) if kind == Kind.INVOICE else (kind,)


def _require_draft(document: SalesDocument) -> None:
    if not document.is_draft:
        raise NotDraft(label=LABELS[document.kind], id=document.pk, status=document.get_status_display())


def _customer(actor: Actor, document: SalesDocument, fields: dict[str, Any]) -> None:
    if fields.get("contact_id") is not None:
        from apps.contacts import api as contacts_api

        contact = contacts_api.contact(actor=actor, contact_id=fields["contact_id"])
        document.contact = contact
        document.customer_name = fields.get("customer_name") or contact.display_name
        document.customer_email = fields.get("customer_email") or contact.email
        address = [contact.street, contact.city, contact.postal_code, contact.country]
        document.customer_address = fields.get("customer_address") or "\n".join(a for a in address if a)
    for name in ("customer_name", "customer_email", "customer_address", "reference", "notes"):
        if fields.get(name) is not None:
            setattr(document, name, fields[name].strip())
    if "customer_vat_number" in fields:
        value = fields["customer_vat_number"] or ""
        document.customer_vat_number = (
            identifiers.vat_number(value, field="customerVatNumber") if value else ""
        )
    if not document.customer_name:
        raise invalid("customerName", _("name the customer, or give a contactId"))


def _apply(actor: Actor, document: SalesDocument, fields: dict[str, Any], creating: bool) -> None:
    books = ledger.books()
    _customer(actor, document, fields)
    if creating or "currency" in fields:
        document.currency = currency_code(fields.get("currency") or books.base_currency)
    if creating:
        document.prices_include_tax = books.prices_include_tax
        document.tax_rounding = books.tax_rounding
    if fields.get("prices_include_tax") is not None:
        document.prices_include_tax = fields["prices_include_tax"]
    if creating or fields.get("issue_date"):
        document.issue_date = fields.get("issue_date") or timezone.localdate()
    if fields.get("due_date"):
        document.due_date = fields["due_date"]
    elif creating and document.kind == Kind.INVOICE:
        document.due_date = document.issue_date + timedelta(days=books.payment_terms_days)
    if document.due_date and document.due_date < document.issue_date:
        raise invalid("dueDate", _("is before the issue date"))
    _check_credit_note(document)


def _check_credit_note(document: SalesDocument) -> None:
    """A credit note is in the currency of the invoice it corrects, and not dated before it."""
    if document.kind != Kind.CREDIT_NOTE or document.origin_id is None:
        return
    invoice = SalesDocument.objects.only("number", "currency", "issue_date").get(pk=document.origin_id)
    if document.currency != invoice.currency:
        raise CreditNoteCurrency(
            id=document.pk, invoice=invoice.number, currency=invoice.currency, given=document.currency
        )
    if document.issue_date < invoice.issue_date:
        raise CreditNoteBeforeInvoice(
            id=document.pk,
            invoice=invoice.number,
            date=document.issue_date.isoformat(),
            invoice_date=invoice.issue_date.isoformat(),
        )


def _set_lines(document: SalesDocument, lines: list[LineData]) -> None:
    if not lines:
        raise invalid("lines", _("a document needs at least one line"))
    found = tax.tax_types_by_code([line.tax_type for line in lines])
    sales = ledger.account(Account.Role.SALES)
    accounts = ledger.line_accounts_by_code(line.account for line in lines if line.account)
    tax.set_lines(
        document,
        [
            (
                tax.LineIn(line.quantity, line.unit_price, found[line.tax_type], line.discount_percent),
                {
                    "description": line.description,
                    "discount_percent": line.discount_percent,
                    "account": accounts[line.account] if line.account else sales,
                },
            )
            for line in lines
        ],
    )


def document_create(
    *, actor: Actor, kind: str, fields: dict[str, Any], lines: list[LineData]
) -> SalesDocument:
    require(actor, AccountingPerm.EDIT)
    document = SalesDocument(kind=kind, created_by_id=actor_id(actor))
    _apply(actor, document, fields, True)
    document.save()
    _set_lines(document, lines)
    document.save()
    logger.info("%s %s created", kind, document.pk)
    return document


def document_update(
    *, actor: Actor, document: SalesDocument, fields: dict[str, Any], lines: list[LineData] | None
) -> list[str]:
    require(actor, AccountingPerm.EDIT)
    _require_draft(document)
    names = [
        "customer_name",
        "customer_email",
        "customer_address",
        "customer_vat_number",
        "reference",
        "notes",
        "currency",
        "prices_include_tax",
        "issue_date",
        "due_date",
        "contact_id",
        "total",
    ]
    before = {name: getattr(document, name) for name in names}
    _apply(actor, document, fields, False)
    if lines is not None or any(name in fields for name in ("currency", "prices_include_tax")):
        _set_lines(document, lines if lines is not None else _lines_of(document))
    document.save()
    changed = [name for name in names if getattr(document, name) != before[name]]
    return changed + (["lines"] if lines is not None else [])


def _lines_of(document: SalesDocument) -> list[LineData]:
    return [
        LineData(
            line.description,
            line.unit_price,
            line.tax_type.code,
            line.quantity,
            line.discount_percent,
            line.account.code,
        )
        for line in document.lines.select_related("tax_type", "account")
    ]


def document_delete(*, actor: Actor, document: SalesDocument) -> None:
    require(actor, AccountingPerm.DELETE)
    _require_draft(document)
    document.trash(actor)


def document_duplicate(*, actor: Actor, document: SalesDocument, kind: str | None = None) -> SalesDocument:
    """A new draft with the same customer and lines (dated today; no number, nothing posted)."""
    fields = {
        "customer_name": document.customer_name,
        "customer_email": document.customer_email,
        "customer_address": document.customer_address,
        "customer_vat_number": document.customer_vat_number,
        "reference": document.reference,
        "notes": document.notes,
        "currency": document.currency,
        "prices_include_tax": document.prices_include_tax,
    }
    copy = document_create(actor=actor, kind=kind or document.kind, fields=fields, lines=_lines_of(document))
    copy.contact_id = document.contact_id
    copy.save(update_fields=["contact"])
    return copy


def next_number(key: str) -> str:
    """The series' next number, taken under a lock on its counter row (see the module)."""
    series = NumberSeries.objects.select_for_update().get(key=key)
    number = series.format(series.next_number)
    series.next_number += 1
    series.save(update_fields=["next_number"])
    return number


def document_approve(*, actor: Actor, document: SalesDocument) -> SalesDocument:
    """Numbers a draft and, for invoices and credit notes, posts it: receivable against sales
    (per account and tax type) and tax (per tax type). A quote is numbered, not posted."""
    require(actor, AccountingPerm.POST)
    _require_draft(document)
    if document.kind != Kind.QUOTE:
        ledger.check_duties(actor, document.created_by_id, label=LABELS[document.kind], id=document.pk)
    ledger.check_open(document.issue_date)
    if document.kind != Kind.QUOTE and document.total < 0:
        raise NegativeTotal(
            label=LABELS[document.kind], id=document.pk, total=document.total, currency=document.currency
        )
    _check_credit_note(document)
    document.number = next_number(document.kind)
    if document.kind != Kind.QUOTE:
        sign = 1 if document.kind == Kind.INVOICE else -1
        document.entry = ledger.post(
            journal="SAL",
            day=document.issue_date,
            currency=document.currency,
            legs=_sales_legs(document, sign),
            actor=actor,
            memo=f"{document.number} {document.customer_name}"[:300],
            source=f"{document.kind}:{document.pk}",
        )
        document.rate = document.entry.rate
    document.status = Status.APPROVED
    document.approved_at = timezone.now()
    document.save()
    if document.kind == Kind.CREDIT_NOTE and document.origin_id is not None:
        _allocate_credit(document)
    sync.queue(document)
    logger.info("%s %s approved as %s", document.kind, document.pk, document.number)
    return document


def _allocate_credit(note: SalesDocument) -> None:
    """A credit note settles what is still due on the invoice it corrects, as far as it goes: the
    invoice's amount due falls by it and the note counts as paid by as much; what the invoice no
    longer owes stays on the note as credit (its amount due, negative on the statement). Both
    are on the receivable already (the note's posting credited it): no entry of its own."""
    if note.origin_id is None:
        return
    invoice = SalesDocument.objects.select_for_update().get(pk=note.origin_id)
    if invoice.status not in OPEN or invoice.currency != note.currency:
        return
    allocated = min(note.total, invoice.amount_due)
    if allocated <= 0:
        return
    for document in (invoice, note):
        document.amount_paid += allocated
        document.status = Status.PAID if document.amount_due == 0 else Status.PART_PAID
        document.save(update_fields=["amount_paid", "status", "updated_at"])


def _sales_legs(document: SalesDocument, sign: int) -> list[ledger.Leg]:
    nets: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
    taxes: dict[int, Decimal] = defaultdict(Decimal)
    lines = list(document.lines.select_related("account", "tax_type"))
    accounts: dict[int, Account] = {}
    tax_types: dict[int, TaxType] = {}
    for line in lines:
        nets[(line.account_id, line.tax_type_id)] += line.net
        accounts[line.account_id], tax_types[line.tax_type_id] = line.account, line.tax_type
    # The document's tax is its breakdown's (per document rounding may differ from the lines').
    groups = tax.breakdown(
        [tax.LineIn(line.quantity, line.unit_price, line.tax_type, line.discount_percent) for line in lines],
        currency=document.currency,
        prices_include_tax=document.prices_include_tax,
        rounding=document.tax_rounding,
    ).groups
    for group in groups:
        taxes[group.tax_type.pk] += group.tax
    legs = [ledger.Leg(ledger.account(Account.Role.RECEIVABLE), sign * document.total, document.number)]
    for (account_id, tax_id), amount in nets.items():
        legs.append(ledger.Leg(accounts[account_id], -sign * amount, document.number, tax_types[tax_id]))
    tax_account = ledger.account(Account.Role.TAX)
    legs.extend(
        ledger.Leg(tax_account, -sign * amount, document.number, tax_types[tax_id])
        for tax_id, amount in taxes.items()
    )
    # Per-document rounding: the lines' nets may differ from the breakdown's by a minor unit.
    difference = sum((leg.amount for leg in legs), ZERO)
    if difference:
        legs.append(ledger.Leg(ledger.account(Account.Role.ROUNDING), -difference, document.number))
    return legs


def document_void(*, actor: Actor, document: SalesDocument, day: date | None = None) -> SalesDocument:
    """Voids an issued document with nothing paid: its entry is reversed on `day` (default today),
    not before the document's issue date and not in a locked period (PERIOD_LOCKED)."""
    require(actor, AccountingPerm.POST)
    if document.status not in OPEN or document.amount_paid:
        raise wrong_status(document, _("approved or sent, with nothing paid"))
    day = day or timezone.localdate()
    if day < document.issue_date:
        raise invalid(
            "on", _("is before the issue date {issue_date}"), issue_date=document.issue_date.isoformat()
        )
    if document.entry is not None:
        ledger.reverse(document.entry, actor=actor, day=day, memo=f"Void {document.number}")
    document.status = Status.VOID
    document.save(update_fields=["status", "updated_at"])
    sync.queue(document)
    return document


def payment_check(
    *, document: SalesDocument, amount: Decimal, day: date, bank_account: str | None
) -> tuple[Decimal, Account]:
    """What record_payment refuses, checked before anything is written (and before recordPayment's
    confirmation is asked): the amount rounded to the currency and the bank account to debit."""
    if document.kind != Kind.INVOICE or document.status not in OPEN:
        raise wrong_status(document, _("an approved or sent invoice with an amount due"))
    amount = round_money(amount, document.currency)
    if amount <= 0:
        raise invalid("amount", _("must be more than zero"))
    if amount > document.amount_due:
        raise invalid(
            "amount",
            _("{amount} is more than the {due} {currency} due"),
            amount=amount,
            due=document.amount_due,
            currency=document.currency,
        )
    if day < document.issue_date:
        raise invalid("date", _("is before the invoice's issue date"))
    ledger.check_open(day)
    return amount, bank_account_of(bank_account)


def record_payment(
    *,
    actor: Actor,
    document: SalesDocument,
    amount: Decimal,
    day: date,
    reference: str = "",
    bank_account: str | None = None,
    received: Decimal | None = None,
) -> Payment:
    """Records money received against an issued invoice, in its currency. The bank is debited at
    the rate of the payment's day (or, `received`, at what arrived in a base-currency account:
    apps.accounting.services.banking.received_check), the receivable credited at the invoice's
    rate; the difference in base currency is the realised FX gain or loss, posted to the FX
    account in the same entry."""
    from apps.accounting.services import banking

    require(actor, AccountingPerm.POST)
    amount, bank = payment_check(document=document, amount=amount, day=day, bank_account=bank_account)
    received = banking.received_check(currency=document.currency, amount=amount, bank=bank, received=received)
    base = ledger.books().base_currency
    assert document.rate is not None
    cleared = round_money(amount * document.rate, base)
    entry = ledger.post(
        journal="BNK",
        day=day,
        currency=document.currency,
        legs=[
            ledger.Leg(bank, amount, f"Payment {document.number}", base_amount=received),
            ledger.Leg(
                ledger.account(Account.Role.RECEIVABLE), -amount, document.number, base_amount=-cleared
            ),
        ],
        actor=actor,
        memo=f"Payment {document.number} {reference}".strip()[:300],
        source=f"payment:{document.pk}",
        residual_to=ledger.account(Account.Role.FX),
    )
    fx = sum((line.base_amount for line in entry.lines.filter(account__role=Account.Role.FX)), ZERO)
    payment = Payment.objects.create(
        document=document,
        date=day,
        amount=amount,
        currency=document.currency,
        reference=reference,
        bank_account=bank,
        entry=entry,
        fx_gain=-fx,
        recorded_by_id=actor_id(actor),
    )
    document.amount_paid += amount
    document.status = Status.PAID if document.amount_due == 0 else Status.PART_PAID
    document.save(update_fields=["amount_paid", "status", "updated_at"])
    sync.queue(payment)
    logger.info("payment %s recorded on %s", payment.pk, document.pk)
    return payment


def bank_account_of(code: str | None) -> Account:
    """The chart's bank account of that code (default: the first), or the refusal."""
    if not code:
        return ledger.account(Account.Role.BANK)
    found = Account.objects.filter(code=code, role=Account.Role.BANK, archived=False).first()
    if found is None:
        raise invalid("bankAccount", _("{code} is not a bank account of the chart"), code=code)
    return found


def rate_for(*, currency: str, day: date) -> rates.Rate:
    return rates.rate(source=currency, target=ledger.books().base_currency, on=day)


def document_dispute(*, actor: Actor, document: SalesDocument, disputed: bool) -> None:
    """Marks an issued invoice disputed (reminders stop) or no longer disputed."""
    require(actor, AccountingPerm.EDIT)
    if document.status not in OPEN:
        raise wrong_status(document, _("approved, sent or part paid"))
    document.disputed = disputed
    document.save(update_fields=["disputed", "updated_at"])


def credit_note_for(*, actor: Actor, invoice: SalesDocument) -> SalesDocument:
    """A draft credit note for an issued invoice, with its lines (edit it down to what is credited)."""
    if invoice.kind != Kind.INVOICE or invoice.status not in (*OPEN, Status.PAID):
        raise wrong_status(invoice, _("an issued invoice"))
    note = document_duplicate(actor=actor, document=invoice, kind=Kind.CREDIT_NOTE)
    note.origin = invoice
    note.reference = invoice.number
    # Not dated before the invoice it corrects (one dated later than today is credited on its day).
    note.issue_date = max(note.issue_date, invoice.issue_date)
    note.save(update_fields=["origin", "reference", "issue_date"])
    return note


def quote_answer(*, actor: Actor, quote: SalesDocument, accepted: bool) -> None:
    require(actor, AccountingPerm.EDIT)
    if quote.status not in (Status.APPROVED, Status.SENT):
        raise wrong_status(quote, _("approved or sent"))
    quote.status = Status.ACCEPTED if accepted else Status.DECLINED
    quote.save(update_fields=["status", "updated_at"])


def quote_invoice(*, actor: Actor, quote: SalesDocument) -> SalesDocument:
    """A draft invoice from an approved or accepted quote; the quote is then invoiced."""
    if quote.status not in (Status.APPROVED, Status.SENT, Status.ACCEPTED):
        raise wrong_status(quote, _("approved, sent or accepted"))
    invoice = document_duplicate(actor=actor, document=quote, kind=Kind.INVOICE)
    invoice.origin = quote
    invoice.reference = invoice.reference or quote.number
    invoice.save(update_fields=["origin", "reference"])
    quote.status = Status.INVOICED
    quote.save(update_fields=["status", "updated_at"])
    return invoice


# --- charges: billable items not yet invoiced ----------------------------------------------------


def charge_create(*, actor: Actor, fields: dict[str, Any]) -> Charge:
    require(actor, AccountingPerm.EDIT)
    charge = Charge(created_by_id=actor_id(actor), status=Charge.Status.UNCLAIMED)
    _charge_apply(actor, charge, fields, creating=True)
    charge.save()
    return charge


def charge_update(*, actor: Actor, charge: Charge, fields: dict[str, Any]) -> list[str]:
    require(actor, AccountingPerm.EDIT)
    _require_unclaimed(charge)
    names = [
        "customer_name",
        "description",
        "date",
        "quantity",
        "unit_price",
        "currency",
        "tax_type_id",
        "account_id",
        "contact_id",
    ]
    before = {name: getattr(charge, name) for name in names}
    _charge_apply(actor, charge, fields, creating=False)
    charge.save()
    return [name.removesuffix("_id") for name in names if getattr(charge, name) != before[name]]


def _require_unclaimed(charge: Charge) -> None:
    if charge.status != Charge.Status.UNCLAIMED:
        raise WrongStatus(
            label=_("Charge"), id=charge.pk, status=charge.get_status_display(), wanted=_("not invoiced")
        )


def _charge_apply(actor: Actor, charge: Charge, fields: dict[str, Any], *, creating: bool) -> None:
    if fields.get("contact_id") is not None:
        from apps.contacts import api as contacts_api

        charge.contact = contacts_api.contact(actor=actor, contact_id=fields["contact_id"])
        charge.customer_name = fields.get("customer_name") or charge.contact.display_name
    for name in ("customer_name", "description"):
        if fields.get(name):
            setattr(charge, name, fields[name].strip())
    if not charge.customer_name:
        raise invalid("customerName", _("name the customer, or give a contactId"))
    if not charge.description:
        raise invalid("description", _("say what is charged"))
    if creating or fields.get("currency"):
        charge.currency = currency_code(fields.get("currency") or ledger.books().base_currency)
    if creating or fields.get("date"):
        charge.date = fields.get("date") or timezone.localdate()
    for name in ("quantity", "unit_price"):
        if fields.get(name) is not None:
            setattr(charge, name, fields[name])
    if creating and charge.quantity is None:
        charge.quantity = Decimal(1)
    if charge.unit_price is None:
        raise invalid("unitPrice", _("is required"))
    if charge.quantity <= 0:
        raise invalid("quantity", _("must be more than zero"))
    if creating or fields.get("tax_type"):
        code = fields.get("tax_type") or ""
        charge.tax_type = tax.tax_types_by_code([code])[code]
    if creating or fields.get("account"):
        code = fields.get("account")
        account = (
            Account.objects.filter(code=code, archived=False).first()
            if code
            else ledger.account(Account.Role.SALES)
        )
        if account is None:
            raise invalid("account", _("there is no account {code}"), code=code)
        ledger.check_line_account(account)
        charge.account = account


def charge_invoice(*, actor: Actor, charges: list[Charge], invoice: SalesDocument | None) -> SalesDocument:
    """Puts unclaimed charges on a draft invoice as lines (a new draft for their customer when none
    is given); they are then claimed. All must be in the invoice's currency."""
    require(actor, AccountingPerm.EDIT)
    for charge in charges:
        _require_unclaimed(charge)
    first = charges[0]
    if invoice is None:
        invoice = document_create(
            actor=actor,
            kind=Kind.INVOICE,
            fields={
                "customer_name": first.customer_name,
                "currency": first.currency,
                "contact_id": first.contact_id,
            },
            lines=[_charge_line(charge) for charge in charges],
        )
    else:
        if invoice.kind != Kind.INVOICE:
            raise invalid("invoiceId", _("name an invoice"))
        _require_draft(invoice)
        wrong = [charge.pk for charge in charges if charge.currency != invoice.currency]
        if wrong:
            raise invalid(
                "chargeId",
                _("charge {id} is not in {currency}"),
                id=wrong[0],
                currency=invoice.currency,
            )
        document_update(
            actor=actor,
            document=invoice,
            fields={},
            lines=_lines_of(invoice) + [_charge_line(charge) for charge in charges],
        )
    for charge in charges:
        charge.status, charge.invoice = Charge.Status.INVOICED, invoice
        charge.save(update_fields=["status", "invoice", "updated_at"])
    return invoice


def _charge_line(charge: Charge) -> LineData:
    return LineData(
        f"{charge.description} ({charge.date.isoformat()})",
        charge.unit_price,
        charge.tax_type.code,
        charge.quantity,
        ZERO,
        charge.account.code,
    )


def charge_write_off(*, actor: Actor, charge: Charge, restore: bool = False) -> None:
    require(actor, AccountingPerm.EDIT)
    if restore:
        if charge.status != Charge.Status.WRITTEN_OFF:
            raise WrongStatus(
                label=_("Charge"), id=charge.pk, status=charge.get_status_display(), wanted=_("written off")
            )
        charge.status = Charge.Status.UNCLAIMED
    else:
        _require_unclaimed(charge)
        charge.status = Charge.Status.WRITTEN_OFF
    charge.save(update_fields=["status", "updated_at"])
