"""Bank rules: conditions on a statement line that suggest how to code it.

A rule holds when every condition it names does: the line's bank account (or any), its direction
(money in, out, or either), words that must all be in its description, counterparty or reference
(case aside), and an amount range on its magnitude. The first rule that holds (by position, then
age) suggests a contact, an account and a tax type, which the unmatched lines' listing shows
(`suggestions`); recording the line with recordBankTransaction is still a person's decision. A
rule never posts anything by itself.
"""

import logging
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from apps.accounting.lib import ledger, tax
from apps.accounting.lib.money import decimal_of, round_money
from apps.accounting.models import BankAccount, BankRule, Financial
from apps.accounting.permissions import AccountingPerm
from apps.core.actors import Actor, actor_id, require
from apps.core.errors import invalid

logger = logging.getLogger(__name__)
ZERO = Decimal(0)


def _text(value: Any, *, field: str, most: int) -> str:
    text = " ".join(str(value or "").split())
    if len(text) > most:
        raise invalid(field, _("at most {most} characters"), most=most)
    return text


def _apply(rule: BankRule, fields: dict[str, Any], *, creating: bool) -> None:
    """Sets and checks the rule's fields (`fields` by model name; only those given change)."""
    if "name" in fields or creating:
        rule.name = _text(fields.get("name"), field="name", most=120)
        if not rule.name:
            raise invalid("name", _("name the rule"))
    if fields.get("position") is not None:
        rule.position = int(fields["position"])
    if "bank_account" in fields:
        rule.bank_account = fields["bank_account"]
    if fields.get("direction") is not None:
        if fields["direction"] not in BankRule.Direction.values:
            raise invalid("direction", _("any, in or out"))
        rule.direction = fields["direction"]
    if "contains" in fields:
        rule.contains = _text(fields["contains"], field="contains", most=200)
    currency = rule.bank_account.currency if rule.bank_account else ledger.books().base_currency
    for name, field in (("amount_min", "amountMin"), ("amount_max", "amountMax")):
        if name in fields:
            value = fields[name]
            if value is None:
                setattr(rule, name, None)
                continue
            amount = decimal_of(value, field=field)
            if amount < 0:
                raise invalid(field, _("a magnitude: zero or more"))
            setattr(rule, name, round_money(amount, currency))
    if rule.amount_min is not None and rule.amount_max is not None and rule.amount_min > rule.amount_max:
        raise invalid("amountMax", _("must be at least amountMin {least}"), least=rule.amount_min)
    if "contact_name" in fields:
        rule.contact_name = _text(fields["contact_name"], field="contactName", most=200)
    if fields.get("account") is not None or creating:
        if not fields.get("account"):
            raise invalid("account", _("a rule suggests an account (listAccounts has the codes)"))
        account = ledger.accounts_by_code([fields["account"]])[fields["account"]]
        ledger.check_line_account(account)
        rule.account = account
    if fields.get("tax_type") is not None or creating:
        if not fields.get("tax_type"):
            raise invalid("taxType", _("a rule suggests a tax type (listTaxTypes has the codes)"))
        rule.tax_type = tax.tax_types_by_code([fields["tax_type"]])[fields["tax_type"]]
    if not (
        rule.contains
        or rule.amount_min is not None
        or rule.amount_max is not None
        or rule.direction != BankRule.Direction.ANY
        or rule.bank_account_id
    ):
        raise invalid("contains", _("give at least one condition: words, an amount range, a direction"))


def _save(rule: BankRule) -> None:
    try:
        with transaction.atomic():
            rule.save()
    except IntegrityError:
        raise invalid("name", _("there is already a rule named {name}"), name=rule.name) from None


def rule_create(*, actor: Actor, fields: dict[str, Any]) -> BankRule:
    require(actor, AccountingPerm.EDIT)
    rule = BankRule(created_by_id=actor_id(actor))
    _apply(rule, fields, creating=True)
    _save(rule)
    logger.info("bank rule %s added", rule.pk)
    return rule


def rule_update(*, actor: Actor, rule: BankRule, fields: dict[str, Any]) -> None:
    require(actor, AccountingPerm.EDIT)
    _apply(rule, fields, creating=False)
    _save(rule)


def rule_delete(*, actor: Actor, rule: BankRule) -> None:
    require(actor, AccountingPerm.DELETE)
    rule.trash(actor)


def rules(*, actor: Actor, bank: BankAccount | None = None) -> Any:
    rows = BankRule.objects.restrict(actor).select_related("account", "tax_type", "bank_account")
    if bank is not None:
        rows = rows.filter(Q(bank_account=bank) | Q(bank_account__isnull=True))
    return rows.order_by("position", "id")


def holds(rule: BankRule, financial: Financial) -> bool:
    """Whether every condition of the rule holds for the line (see the module)."""
    if rule.bank_account_id is not None and rule.bank_account_id != financial.bank_account_id:
        return False
    amount = financial.amount
    if rule.direction == BankRule.Direction.IN and amount < 0:
        return False
    if rule.direction == BankRule.Direction.OUT and amount > 0:
        return False
    magnitude = abs(amount)
    if rule.amount_min is not None and magnitude < rule.amount_min:
        return False
    if rule.amount_max is not None and magnitude > rule.amount_max:
        return False
    text = f"{financial.description} {financial.counterparty} {financial.reference}".casefold()
    return all(word in text for word in rule.contains.casefold().split())


@dataclass(frozen=True)
class Suggestion:
    rule: BankRule
    direction: str  # spend or receive, for recordBankTransaction


def suggest(every: list[BankRule], line: Financial) -> Suggestion | None:
    """The first of `every` rule (in their order) that holds for a line not matched yet."""
    if line.match_id is not None:
        return None
    rule = next((rule for rule in every if holds(rule, line)), None)
    return None if rule is None else Suggestion(rule, "receive" if line.amount > 0 else "spend")


def suggestions(*, actor: Actor, lines: list[Financial]) -> dict[int, Suggestion]:
    """The first rule that holds for each line not matched yet, by the line's id."""
    every = list(rules(actor=actor))
    found = {line.pk: suggest(every, line) for line in lines}
    return {pk: suggestion for pk, suggestion in found.items() if suggestion is not None}
