"""The chart of accounts and the tax types: listed, and changed within the rules (services.chart)."""

from typing import Annotated, Literal

from django.db.models import Q
from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounting.lib import ledger
from apps.accounting.models import Account
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import chart
from apps.accounting.shapes import TaxTypeOut
from apps.accounting.tools.common import Decimalish
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, Out
from apps.core.errors import invalid

AccountType = Literal["asset", "liability", "equity", "income", "expense"]
Code = Annotated[str, Field(min_length=1, max_length=10, description="Account code")]


class AccountOut(Out):
    code: str
    name: str
    type: str
    role: str = Field(description="What the ledger posts to it itself; empty: an ordinary account")
    archived: bool


class AccountsOut(Out):
    items: list[AccountOut]


@tool("listAccounts", permission=AccountingPerm.VIEW, title="List the chart of accounts", read_only=True)
def list_accounts(
    ctx: ToolContext,
    *,
    type: Annotated[AccountType | None, Field(description="Only this type")] = None,
    query: Annotated[str, Field(max_length=100, description="Words in the code or name")] = "",
    include_archived: Annotated[bool, Field(description="Also archived ones")] = False,
) -> AccountsOut:
    """The chart of accounts: codes, names, types, which the ledger uses itself; listTaxTypes: taxes."""
    ledger.books()
    rows = Account.objects.all()
    if type:
        rows = rows.filter(type=type)
    for word in query.split():
        rows = rows.filter(Q(code__icontains=word) | Q(name__icontains=word))
    if not include_archived:
        rows = rows.filter(archived=False)
    return AccountsOut(items=[AccountOut.of_record(row) for row in rows.order_by("code")[:500]])


class ManagedAccountOut(Out):
    action: str
    account: AccountOut | None = Field(description="None once deleted")


@tool("manageAccount", permission=AccountingPerm.ADMIN, title="Change the chart of accounts")
def manage_account(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["add", "rename", "archive", "restore", "delete"],
        Field(description="delete: only one never used; else archive"),
    ],
    code: Code,
    name: Annotated[str | None, Field(max_length=120, description="add, rename")] = None,
    type: Annotated[AccountType | None, Field(description="add")] = None,
) -> ManagedAccountOut:
    """Add, rename, archive, restore or delete an account of the chart; listAccounts reads it."""
    if action == "add":
        if not name or not type:
            raise invalid("name", _("adding an account needs its name and type"))
        made = chart.account_add(actor=ctx.actor, code=code, name=name, type=type)
        return ManagedAccountOut(action=action, account=AccountOut.of_record(made))
    found = chart.account_get(code=code)
    if action == "rename":
        if not name:
            raise invalid("name", _("give the new name"))
        chart.account_rename(actor=ctx.actor, account=found, name=name)
    elif action in ("archive", "restore"):
        chart.account_archive(actor=ctx.actor, account=found, archived=action == "archive")
    else:
        chart.account_delete(actor=ctx.actor, account=found)
        return ManagedAccountOut(action=action, account=None)
    return ManagedAccountOut(action=action, account=AccountOut.of_record(found))


class TaxTypeFields(Changes):
    name: Annotated[str | None, Field(max_length=80)] = None
    rate: Annotated[Decimalish | None, Field(description="Percent; fixed once used")] = None
    kind: Annotated[
        Literal["standard", "zero", "exempt", "reverse_charge", "out_of_scope"] | None,
        Field(description="Fixed once used"),
    ] = None
    report_box: Annotated[str | None, Field(max_length=20, description="Box of the tax return")] = None
    exemption_reason: Annotated[
        str | None, Field(max_length=200, description="Exempt, reverse charge: legal text or VATEX code")
    ] = None


class ManagedTaxTypeOut(Out):
    action: str
    tax_type: TaxTypeOut
    changed: list[str]


@tool("manageTaxType", permission=AccountingPerm.ADMIN, title="Change the tax types")
def manage_tax_type(
    ctx: ToolContext,
    *,
    action: Annotated[
        Literal["add", "update", "archive", "restore"],
        Field(description="A used rate is not updated: add a new type, archive the old"),
    ],
    code: Annotated[str, Field(min_length=1, max_length=20, description="Tax type code")],
    tax_type: Annotated[TaxTypeFields | None, Field(description="add, update")] = None,
) -> ManagedTaxTypeOut:
    """Add, update, archive or restore a tax type (rate); listTaxTypes lists them."""
    fields = tax_type.given(required=action == "update") if tax_type else {}
    if action == "update" and not fields:
        raise invalid("taxType", _("say what to change: name, rate, kind, reportBox or exemptionReason"))
    if action == "add":
        made = chart.tax_type_add(actor=ctx.actor, code=code, fields=fields)
        return ManagedTaxTypeOut(action=action, tax_type=TaxTypeOut.of_record(made), changed=sorted(fields))
    found = chart.tax_type_get(code=code)
    changed: list[str] = []
    if action == "update":
        changed = chart.tax_type_update(actor=ctx.actor, tax_type=found, fields=fields)
    else:
        chart.tax_type_archive(actor=ctx.actor, tax_type=found, archived=action == "archive")
        changed = ["archived"]
    return ManagedTaxTypeOut(action=action, tax_type=TaxTypeOut.of_record(found), changed=changed)
