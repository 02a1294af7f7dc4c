"""Bank rules: what a statement line's text, amount and direction suggest for it
(apps.accounting.services.bankrules)."""

from decimal import Decimal
from typing import Annotated, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.lib import ledger
from apps.accounting.lib.money import round_money
from apps.accounting.models import BankAccount, BankRule
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import bankrules
from apps.accounting.shapes import Amount
from apps.accounting.tools.common import Decimalish, TaxCode
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, Out, id_field
from apps.core.errors import invalid

RuleId = Annotated[int | None, id_field("listBankRules", description="Not for add")]


class SuggestionOut(Out):
    rule_id: int
    rule: str
    direction: str = Field(description="For recordBankTransaction")
    contact_name: str
    account: str
    tax_type: str

    @classmethod
    def of(cls, found: bankrules.Suggestion) -> "SuggestionOut":
        rule = found.rule
        return cls(
            rule_id=rule.pk,
            rule=rule.name,
            direction=found.direction,
            contact_name=rule.contact_name,
            account=rule.account.code,
            tax_type=rule.tax_type.code,
        )


class BankRuleOut(Out):
    id: int
    name: str
    position: int
    bank_account_id: int | None = Field(description="None: every bank account")
    direction: str
    contains: str
    amount_min: Amount | None
    amount_max: Amount | None
    contact_name: str
    account: str
    tax_type: str

    @classmethod
    def of(cls, rule: BankRule) -> "BankRuleOut":
        currency = rule.bank_account.currency if rule.bank_account else ledger.books().base_currency

        def money(value: Decimal | None) -> Decimal | None:
            return None if value is None else round_money(value, currency)

        return cls.of_record(
            rule,
            amount_min=money(rule.amount_min),
            amount_max=money(rule.amount_max),
            account=rule.account.code,
            tax_type=rule.tax_type.code,
        )


class RuleFields(Changes):
    name: Annotated[str, Field(max_length=200)] = ""
    position: Annotated[int, Field(ge=0, le=10_000, description="Lower first")] = 0
    bank_account_id: Annotated[int | None, id_field("listBankAccounts", description="Default: any")] = None
    direction: Literal["any", "in", "out"] = "any"
    contains: Annotated[str, Field(max_length=300, description="Words all in the line's text")] = ""
    amount_min: Annotated[Decimalish | None, Field(description="Magnitude")] = None
    amount_max: Annotated[Decimalish | None, Field(description="Magnitude")] = None
    contact_name: Annotated[str, Field(max_length=200, description="Suggested")] = ""
    account: Annotated[str, Field(max_length=10, description="Suggested; code from listAccounts")] = ""
    tax_type: TaxCode | None = None


def _fields(ctx: ToolContext, rule: RuleFields) -> dict[str, object]:
    given = rule.given()
    names = {
        "name": "name",
        "position": "position",
        "direction": "direction",
        "contains": "contains",
        "amount_min": "amount_min",
        "amount_max": "amount_max",
        "contact_name": "contact_name",
        "account": "account",
        "tax_type": "tax_type",
    }
    fields: dict[str, object] = {names[key]: value for key, value in given.items() if key in names}
    if "bank_account_id" in given:
        pk = given["bank_account_id"]
        fields["bank_account"] = None if pk is None else BankAccount.objects.fetch(ctx.actor, pk)
    return fields


@tool("manageBankRule", permission=AccountingPerm.EDIT, title="Add, change or delete a bank rule")
def manage_bank_rule(
    ctx: ToolContext,
    *,
    action: Annotated[Literal["add", "update", "delete"], Field(description="delete: to the trash")],
    rule_id: RuleId = None,
    rule: Annotated[RuleFields | None, Field(description="add, update")] = None,
) -> BankRuleOut:
    """Keep bank rules: a bank line's text, amount or direction suggests its account and tax; never posts."""
    if action == "add":
        if rule is None:
            raise invalid("rule", _("add needs the rule"))
        made = bankrules.rule_create(actor=ctx.actor, fields=_fields(ctx, rule))
        return BankRuleOut.of(made)
    if rule_id is None:
        raise invalid("ruleId", _("is required for this action"))
    found = BankRule.objects.select_related("account", "tax_type", "bank_account").fetch(
        ctx.actor, rule_id, "change"
    )
    if action == "update":
        if rule is None:
            raise invalid("rule", _("update needs the changes"))
        bankrules.rule_update(actor=ctx.actor, rule=found, fields=_fields(ctx, rule))
    else:
        bankrules.rule_delete(actor=ctx.actor, rule=found)
    return BankRuleOut.of(found)


class RulesOut(Out):
    rules: list[BankRuleOut]


@tool("listBankRules", permission=AccountingPerm.VIEW, title="List bank rules", read_only=True)
def list_bank_rules(
    ctx: ToolContext,
    *,
    bank_account_id: Annotated[
        int | None, id_field("listBankAccounts", description="Its own and any")
    ] = None,
) -> RulesOut:
    """Bank rules in the order they are tried; their suggestions show on listFinancials' lines."""
    bank = BankAccount.objects.fetch(ctx.actor, bank_account_id) if bank_account_id else None
    return RulesOut(rules=[BankRuleOut.of(rule) for rule in bankrules.rules(actor=ctx.actor, bank=bank)])
