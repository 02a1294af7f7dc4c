"""Purchase bills (accounts payable): read, corrected, checked and posted.

The path of a bill (Dext-like): `bill_extract` reads a PDF or image of the Files area (its text
layer, else Tesseract OCR: apps.accounting.providers.ocr) into a *proposal* that starts from the supplier's
defaults (`supplier_defaults`); `bill_validate` applies corrections and checks it (supplier,
reference, date, currency with a rate, lines with accounts and tax types); `bill_totals` shows
what it adds up to; `bill_reconcile` compares the total the document states with the lines'
(a difference of rounding may be booked as a rounding line; more is an error); `bill_post` posts
the payable through `ledger.post` (purchases and input tax debited, the payable credited) after
the duplicate check: another posted bill of the same supplier, reference, total and date is
refused. A posted bill is never edited; posting teaches the supplier's defaults. A bill with no
file is typed in (`bill_create`): checked at once under the same rules, made validated.

Every function runs inside the tool call's one transaction: nothing is half-posted.
"""

import logging
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import (
    BillNotTied,
    BillNotValid,
    DuplicateBill,
    DuplicateBillReference,
    NegativeBill,
    NotABill,
    WrongStatus,
)
from apps.accounting.lib import billtext, identifiers, ledger, rates, tax
from apps.accounting.lib.money import currency_code, minor_units, round_money
from apps.accounting.models import Account, PurchaseBill, SupplierDefaults, TaxType
from apps.accounting.permissions import AccountingPerm
from apps.accounting.providers import ocr
from apps.accounting.services import payments, sync
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import AppError, invalid
from apps.core.records import Action

logger = logging.getLogger(__name__)
ZERO = Decimal(0)
Status = PurchaseBill.Status
POSTED = (Status.POSTED, Status.PART_PAID, Status.PAID)
EDITABLE = (Status.PROPOSAL, Status.VALIDATED)
LABEL = _("Bill")


@dataclass(frozen=True)
class BillLineData:
    description: str
    unit_price: Decimal
    quantity: Decimal = Decimal(1)
    tax_type: str | None = None  # a tax code; default: the supplier's, else the books' standard
    account: str | None = None  # an account code; default: the supplier's, else purchases


# --- suppliers ---------------------------------------------------------------------------------------


def supplier_key(name: str) -> str:
    """A supplier's name compared loosely: case, punctuation and a company suffix do not count."""
    words = re.sub(r"[^\w\s]", " ", name.lower()).split()
    while words and words[-1] in {"ltd", "limited", "plc", "llc", "inc", "gmbh", "sa", "sarl", "bv", "co"}:
        words.pop()
    return " ".join(words)[:200]


@dataclass(frozen=True)
class Defaults:
    supplier_name: str
    known: bool  # False: nothing stored for this supplier, the books' defaults
    currency: str
    account: Account
    tax_type: TaxType
    prices_include_tax: bool
    payment_terms_days: int
    vat_number: str
    contact_id: int | None
    bills_posted: int


def _standard_tax_type() -> TaxType:
    live = TaxType.objects.filter(archived=False)
    found = live.filter(kind=TaxType.Kind.STANDARD).order_by("-rate", "code").first() or live.first()
    if found is None:
        raise invalid("taxType", _("the books have no tax types"))
    return found


def _stored_defaults(name: str = "", contact_id: int | None = None) -> SupplierDefaults | None:
    rows = SupplierDefaults.objects.select_related("account", "tax_type")
    if contact_id:
        found = rows.filter(supplier_id=contact_id).first()
        if found:
            return found
    key = supplier_key(name)
    return rows.filter(key=key).first() if key else None


def supplier_defaults(*, actor: Actor, name: str = "", contact_id: int | None = None) -> Defaults:
    """What a bill from this supplier starts from: their stored defaults (set by the last bill
    posted), else the books' (base currency, purchases account, standard tax, the books' terms)."""
    require(actor, AccountingPerm.VIEW)
    books = ledger.books()
    if contact_id:
        from apps.contacts import api as contacts_api

        contact = contacts_api.contact(actor=actor, contact_id=contact_id)
        name = name or contact.display_name
    if not (name or "").strip():
        raise invalid("supplier", _("name the supplier, or give a contactId"))
    stored = _stored_defaults(name, contact_id)
    purchases = ledger.account(Account.Role.PURCHASES)
    if stored is None:
        return Defaults(
            name.strip(),
            False,
            books.base_currency,
            purchases,
            _standard_tax_type(),
            books.prices_include_tax,
            books.payment_terms_days,
            "",
            contact_id,
            0,
        )
    return Defaults(
        stored.supplier_name,
        True,
        stored.currency or books.base_currency,
        stored.account if stored.account and not stored.account.archived else purchases,
        stored.tax_type if stored.tax_type and not stored.tax_type.archived else _standard_tax_type(),
        books.prices_include_tax if stored.prices_include_tax is None else stored.prices_include_tax,
        books.payment_terms_days if stored.payment_terms_days is None else stored.payment_terms_days,
        stored.vat_number,
        stored.supplier_id or contact_id,
        stored.bills_posted,
    )


def _learn(bill: PurchaseBill) -> None:
    """After posting: the supplier's next bill starts from this one."""
    first = bill.lines.select_related("account", "tax_type").first()
    stored = _stored_defaults(bill.supplier_name, bill.supplier_id)
    if stored is None:
        stored = SupplierDefaults(key=supplier_key(bill.supplier_name), supplier_name=bill.supplier_name)
    stored.supplier_id = bill.supplier_id or stored.supplier_id
    stored.vat_number = bill.supplier_vat_number or stored.vat_number
    stored.currency = bill.currency
    stored.prices_include_tax = bill.prices_include_tax
    if first is not None:
        stored.account, stored.tax_type = first.account, first.tax_type
    if bill.due_date and bill.issue_date:
        stored.payment_terms_days = max(0, min((bill.due_date - bill.issue_date).days, 365))
    stored.bills_posted += 1
    stored.updated_at = timezone.now()
    stored.save()


# --- reading a document ---------------------------------------------------------------------------------


def _tax_type_for(read: billtext.Read, fallback: TaxType) -> TaxType:
    """The live tax type whose rate the stated tax and net imply, else the supplier's default."""
    if read.net and read.tax is not None and read.net > 0:
        implied = read.tax * 100 / read.net
        for candidate in TaxType.objects.filter(archived=False).order_by("code"):
            charges = candidate.charged_rate or candidate.kind in (
                TaxType.Kind.ZERO,
                TaxType.Kind.OUT_OF_SCOPE,
            )
            if charges and abs(candidate.charged_rate - implied) <= Decimal("0.5"):
                return candidate
    return fallback


def read_file(file: Any) -> tuple[str, str]:
    """The text of a bill's file and how it was read ("text" or "ocr")."""
    from apps.files import api as files

    data = files.file_bytes(file)
    mime_type = (
        files.guess_type(file.name, data) if file.mime_type == "application/octet-stream" else file.mime_type
    )
    if mime_type == files.PDF:
        text = files.text_of(data, mime_type)
        if len(re.findall(r"\w", text)) >= 20:
            return text, PurchaseBill.Source.TEXT
        return ocr.text_of(data, mime_type), PurchaseBill.Source.OCR
    if mime_type in ocr.IMAGE_TYPES:
        return ocr.text_of(data, mime_type), PurchaseBill.Source.OCR
    raise NotABill(name=file.name, mime_type=mime_type)


def bill_extract(*, actor: Actor, file_id: int) -> tuple[PurchaseBill, billtext.Read]:
    """Reads a file into a new proposal (see the module) and says what was found in it."""
    require(actor, AccountingPerm.EDIT)
    from apps.files import api as files

    file = files.file(actor=actor, file_id=file_id)
    text, source = read_file(file)
    found = billtext.read(text)
    books = ledger.books()
    defaults = None
    vat_number = _checked_vat(found.vat_number)
    if found.supplier_name or vat_number:
        # A known VAT number names the supplier better than the first line of the document.
        by_vat = SupplierDefaults.objects.filter(vat_number=vat_number).first() if vat_number else None
        defaults = supplier_defaults(
            actor=actor,
            name=by_vat.supplier_name if by_vat else found.supplier_name,
            contact_id=by_vat.supplier_id if by_vat else None,
        )
    bill = PurchaseBill(
        created_by_id=actor_id(actor), source=source, file=file, extracted_text=text[:100_000]
    )
    bill.supplier_name = defaults.supplier_name if defaults else ""
    bill.supplier_id = defaults.contact_id if defaults else None
    bill.supplier_vat_number = vat_number or (defaults.vat_number if defaults else "")
    bill.reference = found.reference
    bill.currency = found.currency or (defaults.currency if defaults else books.base_currency)
    bill.prices_include_tax = False
    bill.tax_rounding = books.tax_rounding
    bill.issue_date = found.issue_date
    terms = defaults.payment_terms_days if defaults else books.payment_terms_days
    bill.due_date = found.due_date or (found.issue_date + timedelta(days=terms) if found.issue_date else None)
    bill.extracted_total = found.total
    bill.extracted_tax = found.tax
    bill.save()
    account = defaults.account if defaults else ledger.account(Account.Role.PURCHASES)
    tax_type = _tax_type_for(found, defaults.tax_type if defaults else _standard_tax_type())
    if found.items:
        lines = [
            BillLineData(item.description, item.unit_price, item.quantity, tax_type.code, account.code)
            for item in found.items
        ]
    else:
        net = found.net if found.net is not None else (found.total or ZERO) - (found.tax or ZERO)
        what = " ".join(part for part in (str(_("Bill")), found.reference, found.supplier_name) if part)
        lines = [BillLineData(str(what)[:500], net, Decimal(1), tax_type.code, account.code)]
    _set_lines(bill, lines)
    bill.save()
    logger.info("bill %s extracted from file %s (%s)", bill.pk, file.pk, source)
    return bill, found


def _checked_vat(value: str) -> str:
    if not value:
        return ""
    try:
        return identifiers.vat_number(value, field="supplierVatNumber")
    except AppError:
        return ""


# --- proposals ---------------------------------------------------------------------------------------


def bill_get(*, actor: Actor, bill_id: int, action: Action = "view") -> PurchaseBill:
    rows = PurchaseBill.objects.select_related("entry")
    return rows.fetch(actor, bill_id, action, lock=action != "view")


def _require_editable(bill: PurchaseBill) -> None:
    if bill.status not in EDITABLE:
        raise WrongStatus(
            label=LABEL, id=bill.pk, status=bill.get_status_display(), wanted=_("a proposal, not yet posted")
        )


def bill_discard(*, actor: Actor, bill: PurchaseBill) -> None:
    """Discards a bill not yet posted (a proposal read twice, the same bill already posted): it goes
    to the trash, nothing was posted for it. A posted bill stays (its entry is the record)."""
    require(actor, AccountingPerm.DELETE)
    _require_editable(bill)
    bill.trash(actor)
    logger.info("bill %s discarded", bill.pk)


def _set_lines(bill: PurchaseBill, lines: list[BillLineData]) -> None:
    if not lines:
        raise invalid("lines", _("a bill needs at least one line"))
    defaults = _stored_defaults(bill.supplier_name, bill.supplier_id)
    fallback_tax = defaults.tax_type if defaults and defaults.tax_type else _standard_tax_type()
    fallback_account = (
        defaults.account if defaults and defaults.account else ledger.account(Account.Role.PURCHASES)
    )
    found = tax.tax_types_by_code([line.tax_type for line in lines if line.tax_type])
    accounts = ledger.line_accounts_by_code(line.account for line in lines if line.account)
    for line in lines:
        if line.quantity <= 0:
            raise invalid("quantity", _("must be more than zero"))
    tax.set_lines(
        bill,
        [
            (
                tax.LineIn(
                    line.quantity, line.unit_price, found[line.tax_type] if line.tax_type else fallback_tax
                ),
                {
                    "description": line.description,
                    "account": accounts[line.account] if line.account else fallback_account,
                },
            )
            for line in lines
        ],
    )


def lines_of(bill: PurchaseBill) -> list[BillLineData]:
    return [
        BillLineData(
            line.description,
            line.unit_price,
            line.quantity,
            line.tax_type.code if line.tax_type else None,
            line.account.code if line.account else None,
        )
        for line in bill.lines.select_related("tax_type", "account")
    ]


def _apply(actor: Actor, bill: PurchaseBill, fields: dict[str, Any]) -> None:
    if fields.get("contact_id") is not None:
        from apps.contacts import api as contacts_api

        contact = contacts_api.contact(actor=actor, contact_id=fields["contact_id"])
        bill.supplier = contact
        bill.supplier_name = fields.get("supplier_name") or contact.display_name
    for name in ("supplier_name", "reference", "notes"):
        if fields.get(name) is not None:
            setattr(bill, name, fields[name].strip())
    if "supplier_vat_number" in fields:
        value = fields["supplier_vat_number"] or ""
        bill.supplier_vat_number = identifiers.vat_number(value, field="supplierVatNumber") if value else ""
    if fields.get("currency"):
        bill.currency = currency_code(fields["currency"])
    if fields.get("prices_include_tax") is not None:
        bill.prices_include_tax = fields["prices_include_tax"]
    for name in ("issue_date", "due_date"):
        if fields.get(name):
            setattr(bill, name, fields[name])


def problems_of(bill: PurchaseBill) -> list[str]:
    """What stops the bill from being posted, in words (empty: it can be posted)."""
    problems: list[str] = []
    if not bill.supplier_name:
        problems.append(str(_("no supplier (give supplierName or contactId)")))
    if not bill.reference:
        problems.append(str(_("no supplier reference (their invoice number)")))
    if bill.issue_date is None:
        problems.append(str(_("no issue date")))
    else:
        lock = ledger.books().lock_date
        if lock is not None and bill.issue_date <= lock:
            problems.append(
                str(_("the issue date %(day)s is in a period locked up to %(lock)s"))
                % {"day": bill.issue_date.isoformat(), "lock": lock.isoformat()}
            )
        try:
            rates.rate(source=bill.currency, target=ledger.books().base_currency, on=bill.issue_date)
        except AppError as error:
            problems.append(str(error.message))
    if bill.due_date and bill.issue_date and bill.due_date < bill.issue_date:
        problems.append(str(_("the due date is before the issue date")))
    lines = list(bill.lines.select_related("account", "tax_type"))
    if not lines:
        problems.append(str(_("no lines")))
    for line in lines:
        if line.account is None or line.account.archived:
            problems.append(str(_("line %(n)s has no account")) % {"n": line.position + 1})
        elif line.account.type not in (Account.Type.EXPENSE, Account.Type.ASSET):
            problems.append(
                str(_("line %(n)s is on %(code)s, not an expense or asset account"))
                % {"n": line.position + 1, "code": line.account.code}
            )
        if line.tax_type is None or line.tax_type.archived:
            problems.append(str(_("line %(n)s has no tax type")) % {"n": line.position + 1})
    if bill.origin_id is not None:
        problems += _credit_problems(bill)
    elif bill.total <= 0:
        problems.append(
            str(
                _("the total is not more than zero (a supplier credit is made with createSupplierCreditNote)")
            )
        )
    if bill.extracted_total is not None and round_money(bill.extracted_total, bill.currency) != bill.total:
        problems.append(
            str(_("the lines add up to %(total)s but the document states %(stated)s: reconcile the total"))
            % {"total": bill.total, "stated": round_money(bill.extracted_total, bill.currency)}
        )
    duplicate = duplicates_of(bill).first()
    if duplicate is not None:
        problems.append(str(_("bill %(id)s is the same bill, already posted")) % {"id": duplicate.pk})
    return problems


def bill_validate(
    *, actor: Actor, bill: PurchaseBill, fields: dict[str, Any], lines: list[BillLineData] | None
) -> list[str]:
    """Applies corrections to a proposal and checks it: validated when nothing is wrong, else a
    proposal still, with the problems returned."""
    require(actor, AccountingPerm.EDIT)
    _require_editable(bill)
    _apply(actor, bill, fields)
    if bill.due_date is None and bill.issue_date is not None:
        terms = (
            supplier_defaults(actor=actor, name=bill.supplier_name).payment_terms_days
            if bill.supplier_name
            else ledger.books().payment_terms_days
        )
        bill.due_date = bill.issue_date + timedelta(days=terms)
    if lines is not None and bill.origin_id is not None:
        # A supplier credit's lines are given as credited: their prices are negative here.
        lines = [
            BillLineData(line.description, -abs(line.unit_price), line.quantity, line.tax_type, line.account)
            for line in lines
        ]
    if lines is not None or any(name in fields for name in ("currency", "prices_include_tax")):
        _set_lines(bill, lines if lines is not None else lines_of(bill))
    problems = problems_of(bill)
    bill.status = Status.PROPOSAL if problems else Status.VALIDATED
    bill.validated_at = None if problems else timezone.now()
    bill.save()
    return problems


def bill_create(*, actor: Actor, fields: dict[str, Any], lines: list[BillLineData]) -> PurchaseBill:
    """A bill typed in by hand (no document): supplier, their reference, dates, currency and lines,
    made under the rules of a bill read from a document and refused, writing nothing, when one
    fails: a reference the supplier's other live bill has (DUPLICATE_BILL), a control or bank
    account on a line (CONTROL_ACCOUNT_ON_LINE), a total not more than zero (NEGATIVE_TOTAL: a
    supplier credit is createSupplierCreditNote's), an amount the ledger cannot keep
    (AMOUNT_TOO_LARGE), a locked period (PERIOD_LOCKED), a currency without a rate. What is made
    is validated: postPurchaseInvoice posts it."""
    require(actor, AccountingPerm.EDIT)
    books = ledger.books()
    with transaction.atomic():
        bill = PurchaseBill(
            created_by_id=actor_id(actor),
            source=PurchaseBill.Source.MANUAL,
            status=Status.PROPOSAL,
            currency=books.base_currency,
            prices_include_tax=books.prices_include_tax,
            tax_rounding=books.tax_rounding,
        )
        _apply(actor, bill, fields)
        if not bill.supplier_name:
            raise invalid("supplierName", _("name the supplier, or give a contactId"))
        if not bill.reference:
            raise invalid("reference", _("give the supplier's invoice number"))
        if bill.issue_date is None:
            raise invalid("issueDate", _("give the date on the bill"))
        ledger.check_open(bill.issue_date)
        rates.rate(source=bill.currency, target=books.base_currency, on=bill.issue_date)
        if bill.due_date is None:
            terms = supplier_defaults(actor=actor, name=bill.supplier_name).payment_terms_days
            bill.due_date = bill.issue_date + timedelta(days=terms)
        if bill.due_date < bill.issue_date:
            raise invalid("dueDate", _("is before the issue date"))
        other = same_reference(bill).first()
        if other is not None:
            raise DuplicateBillReference(
                other_id=other.pk, supplier=other.supplier_name, reference=other.reference
            )
        bill.save()
        _set_lines(bill, lines)
        for line in bill.lines.select_related("account"):
            if line.account is not None and line.account.type not in (
                Account.Type.EXPENSE,
                Account.Type.ASSET,
            ):
                raise invalid(
                    "lines",
                    _("line {n}: {code} is not an expense or asset account"),
                    n=line.position + 1,
                    code=line.account.code,
                )
        if bill.total <= 0:
            raise NegativeBill(total=bill.total, currency=bill.currency)
        problems = problems_of(bill)
        if problems:
            raise BillNotValid(id=bill.pk, problems="; ".join(problems))
        bill.status = Status.VALIDATED
        bill.validated_at = timezone.now()
        bill.save()
    logger.info("bill %s typed in", bill.pk)
    return bill


def same_reference(bill: PurchaseBill) -> QuerySet[PurchaseBill]:
    """The supplier's other live bills (not void, not in the trash, not supplier credits) with this
    reference: a supplier numbers each invoice once."""
    same_supplier = Q(supplier_name__iexact=bill.supplier_name)
    if bill.supplier_id:
        same_supplier |= Q(supplier_id=bill.supplier_id)
    return (
        PurchaseBill.objects.filter(
            same_supplier, reference__iexact=bill.reference, deleted_at__isnull=True, origin__isnull=True
        )
        .exclude(status=Status.VOID)
        .exclude(pk=bill.pk)
        .order_by("pk")
    )


def duplicates_of(bill: PurchaseBill) -> QuerySet[PurchaseBill]:
    """Posted bills that are this one again: same supplier (contact, or name compared loosely),
    reference, total and issue date."""
    if not bill.reference or bill.issue_date is None:
        return PurchaseBill.objects.none()
    same_supplier = Q(supplier_name__iexact=bill.supplier_name)
    if bill.supplier_id:
        same_supplier |= Q(supplier_id=bill.supplier_id)
    return (
        PurchaseBill.objects.filter(
            same_supplier,
            reference__iexact=bill.reference,
            total=bill.total,
            issue_date=bill.issue_date,
            status__in=POSTED,
        )
        .exclude(pk=bill.pk)
        .order_by("pk")
    )


# --- totals and reconciliation --------------------------------------------------------------------------


@dataclass(frozen=True)
class Totals:
    breakdown: tax.Breakdown
    stated_total: Decimal | None
    difference: Decimal | None  # stated - computed
    base_currency: str
    base_total: Decimal | None
    rate: rates.Rate | None


def bill_totals(*, bill: PurchaseBill) -> Totals:
    lines = list(bill.lines.select_related("tax_type"))
    if any(line.tax_type is None for line in lines):
        raise invalid("lines", _("every line needs a tax type first (validatePurchaseInvoiceProposal)"))
    result = tax.breakdown(
        [tax.LineIn(line.quantity, line.unit_price, line.tax_type) for line in lines if line.tax_type],
        currency=bill.currency,
        prices_include_tax=bill.prices_include_tax,
        rounding=bill.tax_rounding,
    )
    stated = round_money(bill.extracted_total, bill.currency) if bill.extracted_total is not None else None
    base = ledger.books().base_currency
    used = None
    if bill.issue_date is not None:
        try:
            used = rates.rate(source=bill.currency, target=base, on=bill.issue_date)
        except AppError:
            used = None
    return Totals(
        breakdown=result,
        stated_total=stated,
        difference=stated - result.total if stated is not None else None,
        base_currency=base,
        base_total=round_money(result.total * used.value, base) if used else None,
        rate=used,
    )


def bill_reconcile(
    *, actor: Actor, bill: PurchaseBill, stated_total: Decimal | None, adjust: bool
) -> tuple[Decimal, bool]:
    """Compares the document's stated total (corrected by `stated_total` when given) with the
    lines'. A difference of at most one minor unit per line is rounding: with `adjust` it becomes
    a rounding line; a bigger one is an error (AMOUNT_DOES_NOT_TIE). Returns (difference, tied)."""
    require(actor, AccountingPerm.EDIT)
    _require_editable(bill)
    if stated_total is not None:
        if stated_total <= 0:
            raise invalid("statedTotal", _("must be more than zero"))
        bill.extracted_total = round_money(stated_total, bill.currency)
    if bill.extracted_total is None:
        raise invalid(
            "statedTotal", _("the document states no total that was read; give the total it states")
        )
    stated = round_money(bill.extracted_total, bill.currency)
    difference = stated - bill.total
    if difference == ZERO:
        bill.save()
        return difference, True
    lines = lines_of(bill)
    tolerance = Decimal(len(lines)) / (10 ** minor_units(bill.currency))
    if abs(difference) > tolerance or not adjust:
        bill.status = Status.PROPOSAL
        bill.save()
        if abs(difference) > tolerance:
            raise BillNotTied(stated=stated, computed=bill.total, currency=bill.currency)
        return difference, False
    rounding = ledger.account(Account.Role.ROUNDING)
    no_tax = TaxType.objects.filter(archived=False, kind=TaxType.Kind.OUT_OF_SCOPE).first()
    if no_tax is None:
        raise invalid("taxType", _("the books have no out-of-scope tax type for a rounding line"))
    lines.append(BillLineData(str(_("Rounding")), difference, Decimal(1), no_tax.code, rounding.code))
    _set_lines(bill, lines)
    bill.status = Status.PROPOSAL
    bill.save()
    return difference, bill.total == stated


# --- supplier credits --------------------------------------------------------------------------------------


def _credit_problems(credit: PurchaseBill) -> list[str]:
    """A supplier's credit is in its bill's currency, not dated before it, and takes no more than
    is left of the bill's total once its other posted credits are counted."""
    assert credit.origin_id is not None
    bill = PurchaseBill.objects.get(pk=credit.origin_id)
    problems = []
    if credit.total >= 0:
        problems.append(str(_("a supplier credit's total is less than zero (its prices are negative)")))
    if credit.currency != bill.currency:
        problems.append(
            str(_("a supplier credit is in its bill's currency, %(currency)s")) % {"currency": bill.currency}
        )
    if credit.issue_date and bill.issue_date and credit.issue_date < bill.issue_date:
        problems.append(
            str(_("it is dated before its bill's issue date %(day)s")) % {"day": bill.issue_date.isoformat()}
        )
    credited = -sum(
        (other.total for other in bill.credits.filter(status__in=POSTED).exclude(pk=credit.pk)), ZERO
    )
    if -credit.total > bill.total - credited:
        problems.append(
            str(_("it credits %(credit)s but only %(left)s %(currency)s of the bill is not credited yet"))
            % {"credit": -credit.total, "left": bill.total - credited, "currency": bill.currency}
        )
    return problems


def credit_create(
    *,
    actor: Actor,
    bill: PurchaseBill,
    reference: str,
    issue_date: date | None,
    lines: list[BillLineData] | None,
) -> tuple[PurchaseBill, list[str]]:
    """A supplier's credit note for a posted bill, as a proposal checked at once: the bill's
    supplier and currency, its lines credited in full unless `lines` (prices as credited, made
    negative here) say what is credited. Posted with postPurchaseInvoice, it settles what is still
    due on the bill; what is left is the supplier's credit, refunded through the bank."""
    require(actor, AccountingPerm.EDIT)
    if not bill.is_posted or bill.total <= 0 or bill.origin_id is not None:
        raise WrongStatus(
            label=LABEL, id=bill.pk, status=bill.get_status_display(), wanted=_("a posted bill, not a credit")
        )
    assert bill.issue_date is not None
    day = issue_date or max(timezone.localdate(), bill.issue_date)
    if day < bill.issue_date:
        raise invalid(
            "issueDate", _("is before the bill's issue date {day}"), day=bill.issue_date.isoformat()
        )
    reference = reference.strip()
    if not reference:
        raise invalid("reference", _("give the supplier's credit note number"))
    credit = PurchaseBill.objects.create(
        status=Status.PROPOSAL,
        source=PurchaseBill.Source.MANUAL,
        supplier=bill.supplier,
        supplier_name=bill.supplier_name,
        supplier_vat_number=bill.supplier_vat_number,
        reference=reference,
        issue_date=day,
        due_date=day,
        currency=bill.currency,
        prices_include_tax=bill.prices_include_tax,
        tax_rounding=bill.tax_rounding,
        origin=bill,
        created_by_id=actor_id(actor),
    )
    credited = lines if lines is not None else lines_of(bill)
    _set_lines(
        credit,
        [
            BillLineData(line.description, -abs(line.unit_price), line.quantity, line.tax_type, line.account)
            for line in credited
        ],
    )
    problems = bill_validate(actor=actor, bill=credit, fields={}, lines=None)
    return credit, problems


def _allocate_credit(credit: PurchaseBill) -> None:
    """A posted supplier credit settles what is still due on its bill, as far as it goes; both
    count it as paid (the credit negatively). Both are on the payable already: no entry."""
    assert credit.origin_id is not None
    bill = PurchaseBill.objects.select_for_update().get(pk=credit.origin_id)
    if bill.status not in (Status.POSTED, Status.PART_PAID):
        return
    allocated = min(-credit.total, bill.amount_due)
    if allocated <= 0:
        return
    bill.amount_paid += allocated
    payments.follow_bill(bill)
    credit.amount_paid -= allocated
    payments.follow_bill(credit)


def bill_void(*, actor: Actor, bill: PurchaseBill, day: date | None = None) -> PurchaseBill:
    """Voids a posted bill (or supplier credit) with nothing paid or credited: its entry is
    reversed on `day` (default today, never before the bill), its amount due is 0."""
    require(actor, AccountingPerm.POST)
    if bill.status != Status.POSTED or bill.amount_paid or bill.entry is None:
        raise WrongStatus(
            label=LABEL,
            id=bill.pk,
            status=bill.get_status_display(),
            wanted=_("posted, with nothing paid or credited (remove its payments first)"),
        )
    if bill.credits.filter(status__in=POSTED).exists():
        raise WrongStatus(
            label=LABEL,
            id=bill.pk,
            status=bill.get_status_display(),
            wanted=_("without posted supplier credits"),
        )
    assert bill.issue_date is not None
    when = max(day or timezone.localdate(), bill.issue_date)
    ledger.reverse(bill.entry, actor=actor, day=when, memo=f"Void bill {bill.reference}"[:300])
    bill.status = Status.VOID
    bill.save(update_fields=["status", "updated_at"])
    sync.queue(bill)
    logger.info("bill %s voided", bill.pk)
    return bill


# --- posting -----------------------------------------------------------------------------------------------


def post_check(*, actor: Actor, bill: PurchaseBill) -> None:
    """What bill_post refuses before anything else, and before postPurchaseInvoice's confirmation
    is asked: the permission, a bill already posted, and its creator posting it while the books
    separate duties."""
    require(actor, AccountingPerm.POST)
    _require_editable(bill)
    ledger.check_duties(actor, bill.created_by_id, label=LABEL, id=bill.pk)


def bill_post(*, actor: Actor, bill: PurchaseBill) -> PurchaseBill:
    """Posts a validated bill (see the module): purchases per account and tax type and input tax
    per tax type debited, the payable credited with the total, at the rate of the issue date."""
    post_check(actor=actor, bill=bill)
    problems = problems_of(bill)
    duplicate = duplicates_of(bill).first()
    if duplicate is not None:
        raise DuplicateBill(other_id=duplicate.pk, supplier=bill.supplier_name, reference=bill.reference)
    if problems or bill.status != Status.VALIDATED:
        raise BillNotValid(
            id=bill.pk, problems="; ".join(problems) or str(_("it was changed since it was validated"))
        )
    assert bill.issue_date is not None
    bill.entry = ledger.post(
        journal="PUR",
        day=bill.issue_date,
        currency=bill.currency,
        legs=_purchase_legs(bill),
        actor=actor,
        memo=f"Bill {bill.reference} {bill.supplier_name}"[:300],
        source=f"bill:{bill.pk}",
    )
    bill.rate = bill.entry.rate
    bill.status = Status.POSTED
    bill.posted_at = timezone.now()
    bill.save()
    if bill.origin_id is not None:
        _allocate_credit(bill)
    else:
        _learn(bill)
    sync.queue(bill)
    logger.info("bill %s posted as entry %s", bill.pk, bill.entry.pk)
    return bill


def _purchase_legs(bill: PurchaseBill) -> list[ledger.Leg]:
    lines = list(bill.lines.select_related("account", "tax_type"))
    nets: dict[tuple[int, int], Decimal] = defaultdict(Decimal)
    accounts: dict[int, Account] = {}
    tax_types: dict[int, TaxType] = {}
    for line in lines:
        assert line.account is not None and line.tax_type is not None
        nets[(line.account.pk, line.tax_type.pk)] += line.net
        accounts[line.account.pk], tax_types[line.tax_type.pk] = line.account, line.tax_type
    groups = tax.breakdown(
        [tax.LineIn(line.quantity, line.unit_price, tax_types[line.tax_type_id]) for line in lines],  # type: ignore[index]
        currency=bill.currency,
        prices_include_tax=bill.prices_include_tax,
        rounding=bill.tax_rounding,
    ).groups
    what = f"Bill {bill.reference}"[:300]
    legs = [ledger.Leg(ledger.account(Account.Role.PAYABLE), -bill.total, what)]
    legs.extend(
        ledger.Leg(accounts[account_id], amount, what, tax_types[tax_id])
        for (account_id, tax_id), amount in nets.items()
    )
    tax_account = ledger.account(Account.Role.TAX)
    legs.extend(ledger.Leg(tax_account, group.tax, what, group.tax_type) for group in groups if group.tax)
    difference = sum((leg.amount for leg in legs), ZERO)
    if difference:
        legs.append(ledger.Leg(ledger.account(Account.Role.ROUNDING), -difference, what))
    return legs


def bill_search(
    *,
    actor: Actor,
    query: str = "",
    status: str | None = None,
    unpaid: bool = False,
    since: date | None = None,
) -> QuerySet[PurchaseBill]:
    rows = PurchaseBill.objects.restrict(actor)
    for word in query.split():
        rows = rows.filter(
            Q(reference__icontains=word)
            | Q(supplier_name__icontains=word)
            | Q(lines__description__icontains=word)
        ).distinct()
    if status:
        rows = rows.filter(status=status)
    if unpaid:
        rows = rows.filter(status__in=(Status.POSTED, Status.PART_PAID))
    if since:
        rows = rows.filter(issue_date__gte=since)
    return rows.order_by("-issue_date", "-id")
