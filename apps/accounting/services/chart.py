"""Writes of the chart of accounts and the tax types, within the rules that keep the books whole.

- An account's code is unique (archived ones too: a code once used names that account for good).
  What the ledger looks up by role (receivable, payable, tax, bank, sales, purchases, FX,
  rounding, retained earnings) is the system's: renamed, never archived or deleted. An account
  with postings, or on a document's line, is archived (no new line takes it; its postings stay
  in every report), never deleted; one never used may be deleted.
- A tax type's rate, kind and exemption reason are what its postings were taxed at: once the
  tax type is on a posting or a document's line they do not change in place; a new tax type
  takes the new rate and the old one is archived (what was posted keeps its rate). Its name and
  report box can change.

Accounting admins only (`accounting.admin`), as the page and the tools say.
"""

import logging
import re
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import ProtectedError
from django.utils.translation import gettext_lazy as _

from apps.accounting.errors import AccountInUse, AccountProtected, CodeTaken, TaxTypeInUse
from apps.accounting.lib import ledger
from apps.accounting.models import Account, Charge, JournalLine, PurchaseBillLine, SalesLine, TaxType
from apps.accounting.permissions import AccountingPerm
from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.clean import plain
from apps.core.errors import RecordNotFound, invalid

logger = logging.getLogger(__name__)
CODE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.-]{0,9}$")
TYPES = Account.Type.values


def _code(value: str, *, field: str = "code") -> str:
    code = (value or "").strip().upper()
    if not CODE.match(code):
        raise invalid(field, _("1 to 10 letters, digits, dots or hyphens, starting with a letter or digit"))
    return code


def account_get(*, code: str) -> Account:
    ledger.books()
    found = Account.objects.filter(code=(code or "").strip().upper()).first()
    if found is None:
        raise RecordNotFound(label=_("Account"), id=code, find_with="listAccounts")
    return found


def _used(account: Account) -> bool:
    """Whether anything posted or drafted names the account (it is then archived, not deleted)."""
    return (
        JournalLine.objects.filter(account=account).exists()
        or SalesLine.objects.filter(account=account).exists()
        or PurchaseBillLine.objects.filter(account=account).exists()
        or Charge.objects.filter(account=account).exists()
    )


def account_check(*, actor: Actor, code: str, name: str, type: str) -> tuple[str, str, str]:
    """The code, name and type of a new account cleaned as `account_add` cleans them, without
    writing (a code already taken is `account_add`'s to refuse)."""
    require(actor, AccountingPerm.ADMIN)
    code = _code(code)
    name = clean.text(name, field="name", limit=120, required=True)
    if type not in TYPES:
        raise invalid("type", _("one of {types}"), types=", ".join(TYPES))
    return code, name, type


def account_add(*, actor: Actor, code: str, name: str, type: str) -> Account:
    require(actor, AccountingPerm.ADMIN)
    ledger.books()
    code, name, type = account_check(actor=actor, code=code, name=name, type=type)
    taken = Account.objects.filter(code=code).first()
    if taken is not None:
        raise CodeTaken(what=_("Account"), code=code, name=taken.name)
    made = Account.objects.create(code=code, name=name, type=type)
    logger.info("account %s added", made.code)
    return made


def account_rename(*, actor: Actor, account: Account, name: str) -> Account:
    require(actor, AccountingPerm.ADMIN)
    account.name = clean.text(name, field="name", limit=120, required=True)
    account.save(update_fields=["name"])
    return account


def _protected(account: Account) -> None:
    if account.role:
        raise AccountProtected(code=account.code, name=account.name, role=account.get_role_display())


def account_archive(*, actor: Actor, account: Account, archived: bool = True) -> Account:
    """Archives an account (no new line takes it; what it holds stays) or brings it back."""
    require(actor, AccountingPerm.ADMIN)
    if archived:
        _protected(account)
    account.archived = archived
    account.save(update_fields=["archived"])
    return account


def account_delete(*, actor: Actor, account: Account) -> None:
    """Deletes an account nothing ever used; one with postings or on a line is archived instead."""
    require(actor, AccountingPerm.ADMIN)
    _protected(account)
    if _used(account):
        raise AccountInUse(code=account.code, name=account.name)
    try:
        with transaction.atomic():
            account.delete()
    except ProtectedError:
        raise AccountInUse(code=account.code, name=account.name) from None
    logger.info("account %s deleted", account.code)


# --- tax types ----------------------------------------------------------------------------------------


def tax_type_get(*, code: str) -> TaxType:
    ledger.books()
    found = TaxType.objects.filter(code=(code or "").strip().upper()).first()
    if found is None:
        raise RecordNotFound(label=_("Tax type"), id=code, find_with="listTaxTypes")
    return found


def _tax_used(tax_type: TaxType) -> bool:
    return (
        JournalLine.objects.filter(tax_type=tax_type).exists()
        or SalesLine.objects.filter(tax_type=tax_type).exists()
        or PurchaseBillLine.objects.filter(tax_type=tax_type).exists()
        or Charge.objects.filter(tax_type=tax_type).exists()
    )


def _tax_fields(tax_type: TaxType, fields: dict[str, Any]) -> None:
    if "name" in fields:
        tax_type.name = clean.text(fields["name"] or "", field="name", limit=80, required=True)
    if "report_box" in fields:
        tax_type.report_box = clean.text(fields["report_box"] or "", field="reportBox", limit=20)
    if "rate" in fields:
        rate = fields["rate"]
        if rate is None or not Decimal(0) <= rate <= Decimal(100):
            raise invalid("rate", _("must be between 0 and 100 (percent)"))
        tax_type.rate = rate
    if "kind" in fields:
        if fields["kind"] not in TaxType.Kind.values:
            raise invalid("kind", _("one of {kinds}"), kinds=", ".join(TaxType.Kind.values))
        tax_type.kind = fields["kind"]
    if "exemption_reason" in fields:
        tax_type.exemption_reason = clean.text(
            fields["exemption_reason"] or "", field="exemptionReason", limit=200
        )
    needs_reason = tax_type.kind in (TaxType.Kind.EXEMPT, TaxType.Kind.REVERSE_CHARGE)
    if needs_reason and not tax_type.exemption_reason:
        raise invalid(
            "exemptionReason", _("an exempt or reverse-charge tax type needs its legal reason or VATEX code")
        )


def tax_type_add(*, actor: Actor, code: str, fields: dict[str, Any]) -> TaxType:
    require(actor, AccountingPerm.ADMIN)
    ledger.books()
    code = _code(code)
    taken = TaxType.objects.filter(code=code).first()
    if taken is not None:
        raise CodeTaken(what=_("Tax type"), code=code, name=taken.name)
    if "name" not in fields or "rate" not in fields:
        raise invalid("rate", _("a new tax type needs a name and a rate"))
    made = TaxType(code=code, kind=TaxType.Kind.STANDARD)
    _tax_fields(made, fields)
    made.save()
    logger.info("tax type %s added", made.code)
    return made


def tax_type_update(*, actor: Actor, tax_type: TaxType, fields: dict[str, Any]) -> list[str]:
    """Changes a tax type's name or report box; its rate, kind or reason only while nothing
    was taxed with it (TAX_TYPE_IN_USE: add a new one and archive this)."""
    require(actor, AccountingPerm.ADMIN)
    names = ["name", "report_box", "rate", "kind", "exemption_reason"]
    before = {name: getattr(tax_type, name) for name in names}
    _tax_fields(tax_type, fields)
    changed = [name for name in names if getattr(tax_type, name) != before[name]]
    fixed = [name for name in changed if name in ("rate", "kind", "exemption_reason")]
    if fixed and _tax_used(tax_type):
        raise TaxTypeInUse(code=tax_type.code, rate=str(plain(before["rate"])))
    if changed:
        tax_type.save(update_fields=changed)
    return changed


def tax_type_archive(*, actor: Actor, tax_type: TaxType, archived: bool = True) -> TaxType:
    """Archives a tax type (no new line takes it; what was taxed with it stays) or brings it back."""
    require(actor, AccountingPerm.ADMIN)
    tax_type.archived = archived
    tax_type.save(update_fields=["archived"])
    return tax_type
