"""Accounting's records as spreadsheets (apps.core.transfer). Amounts are written as decimal text
in the currency's minor units ("1234.50"), never as floats.

- The chart of accounts is exported and imported: each row an account added as manageAccount adds
  one (`account_add`, administrators), its code, name and type cleaned by the same function; two
  accounts are one when they have the same code (codes are unique, archived ones too).
- Invoices (with credit notes), purchase bills, bank lines and bank transactions are exported
  only. An invoice or a bill is a document of lines and taxes, numbered and posted to the ledger
  when approved: rows of a table are not how one is made. Bank lines come in through the
  statements of the bank (createFinancial's `statement`: CAMT.053, MT940, OFX and CSV, a line
  already imported skipped); the export of bank lines writes `paidIn` and `paidOut`, which that
  import's CSV mapping reads. Bank transactions (money spent or received without a document, transfers)
  post as they are recorded, each through recordBankTransaction.
- Customers and suppliers are the Contacts area's records (a document copies their name): the
  contact kind exports and imports them.

Every row is the whole area's (a role with accounting.view sees them all): no record of Accounting
is one person's own.
"""

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.accounting.lib import ledger
from apps.accounting.lib.money import round_money
from apps.accounting.models import Account, BankTransaction, Financial, PurchaseBill, SalesDocument
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import chart
from apps.core import transfer
from apps.core.transfer import Column

# --- the chart of accounts ----------------------------------------------------------------------

ACCOUNT_COLUMNS = (
    Column("code", "code", "1 to 10 letters, digits, dots or hyphens"),
    Column("name", "name"),
    Column("type", "type", ", ".join(Account.Type.values), parse=lambda text: text.strip().lower()),
)


def _account_check(actor: Any, fields: dict[str, Any]) -> None:
    chart.account_check(
        actor=actor, code=fields.get("code", ""), name=fields.get("name", ""), type=fields.get("type", "")
    )


def _account_create(actor: Any, fields: dict[str, Any]) -> int:
    return chart.account_add(
        actor=actor, code=fields.get("code", ""), name=fields.get("name", ""), type=fields.get("type", "")
    ).pk


def _account_keys(fields: dict[str, Any]) -> list[str]:
    code = str(fields.get("code") or "").strip().upper()
    return [f"code:{code}"] if code else []


def _account_existing(actor: Any, wanted: set[str]) -> dict[str, int]:
    codes = [key.partition(":")[2] for key in wanted if key.startswith("code:")]
    if not codes:
        return {}
    return {
        f"code:{code}": pk for pk, code in Account.objects.filter(code__in=codes).values_list("pk", "code")
    }


transfer.importable(
    transfer.Importable(
        kind="account",
        label=_("Account (chart of accounts)"),
        permission=AccountingPerm.ADMIN,
        columns=ACCOUNT_COLUMNS,
        check=_account_check,
        create=_account_create,
        keys=_account_keys,
        existing=_account_existing,
        description="code: an account of the same code (archived ones too)",
    )
)


def _accounts(actor: Any) -> Any:
    ledger.books()
    return Account.objects.order_by("code")


transfer.exportable(
    transfer.Exportable(
        kind="account",
        label=_("Account (chart of accounts)"),
        permission=AccountingPerm.VIEW,
        columns=(
            ("id", lambda account: account.pk),
            ("code", lambda account: account.code),
            ("name", lambda account: account.name),
            ("type", lambda account: account.type),
            ("role", lambda account: account.role),
            ("archived", lambda account: account.archived),
        ),
        rows=_accounts,
        search=("code", "name"),
    )
)


# --- invoices and bills -------------------------------------------------------------------------


def _money(value: Decimal | None, currency: str) -> Decimal | None:
    # A Decimal is written as a plain number ("-35.50"), never taken for a formula (apps.platform.tables).
    return None if value is None else round_money(value, currency)


def _totals() -> tuple[tuple[str, Any], ...]:
    return (
        ("currency", lambda document: document.currency),
        ("net", lambda document: _money(document.net, document.currency)),
        ("tax", lambda document: _money(document.tax, document.currency)),
        ("total", lambda document: _money(document.total, document.currency)),
        ("amountPaid", lambda document: _money(document.amount_paid, document.currency)),
        ("amountDue", lambda document: _money(document.amount_due, document.currency)),
    )


transfer.exportable(
    transfer.Exportable(
        kind="invoice",
        label=_("Invoice"),
        permission=AccountingPerm.VIEW,
        columns=(
            ("id", lambda document: document.pk),
            ("kind", lambda document: document.kind),
            ("number", lambda document: document.number),
            ("status", lambda document: document.status),
            ("customerName", lambda document: document.customer_name),
            ("customerEmail", lambda document: document.customer_email),
            ("customerVatNumber", lambda document: document.customer_vat_number),
            ("reference", lambda document: document.reference),
            ("issueDate", lambda document: document.issue_date),
            ("dueDate", lambda document: document.due_date),
            *_totals(),
            ("disputed", lambda document: document.disputed),
            ("approvedAt", lambda document: document.approved_at),
            ("sentAt", lambda document: document.sent_at),
            ("createdAt", lambda document: document.created_at),
        ),
        rows=lambda actor: (
            SalesDocument.objects.restrict(actor, "view")
            .filter(kind__in=(SalesDocument.Kind.INVOICE, SalesDocument.Kind.CREDIT_NOTE))
            .order_by("issue_date", "id")
        ),
        search=("number", "customer_name", "customer_email", "reference"),
    )
)

transfer.exportable(
    transfer.Exportable(
        kind="bill",
        label=_("Purchase bill"),
        permission=AccountingPerm.VIEW,
        columns=(
            ("id", lambda bill: bill.pk),
            ("status", lambda bill: bill.status),
            ("supplierName", lambda bill: bill.supplier_name),
            ("supplierVatNumber", lambda bill: bill.supplier_vat_number),
            ("reference", lambda bill: bill.reference),
            ("issueDate", lambda bill: bill.issue_date),
            ("dueDate", lambda bill: bill.due_date),
            *_totals(),
            ("source", lambda bill: bill.source),
            ("postedAt", lambda bill: bill.posted_at),
            ("createdAt", lambda bill: bill.created_at),
        ),
        rows=lambda actor: (
            PurchaseBill.objects.restrict(actor, "view").defer("extracted_text").order_by("issue_date", "id")
        ),
        search=("supplier_name", "reference"),
    )
)


# --- the bank -----------------------------------------------------------------------------------


def _paid_in(amount: Decimal, currency: str) -> Decimal | None:
    return _money(amount, currency) if amount > 0 else None


def _paid_out(amount: Decimal, currency: str) -> Decimal | None:
    return _money(-amount, currency) if amount < 0 else None


transfer.exportable(
    transfer.Exportable(
        kind="bankLine",
        label=_("Bank line"),
        permission=AccountingPerm.VIEW,
        columns=(
            ("id", lambda line: line.pk),
            ("bankAccount", lambda line: line.bank_account.name),
            ("currency", lambda line: line.bank_account.currency),
            ("date", lambda line: line.date),
            ("paidIn", lambda line: _paid_in(line.amount, line.bank_account.currency)),
            ("paidOut", lambda line: _paid_out(line.amount, line.bank_account.currency)),
            ("description", lambda line: line.description),
            ("counterparty", lambda line: line.counterparty),
            ("reference", lambda line: line.reference),
            ("source", lambda line: line.source),
            ("matched", lambda line: line.match_id is not None),
            ("createdAt", lambda line: line.created_at),
        ),
        rows=lambda actor: (
            Financial.objects.restrict(actor, "view").select_related("bank_account").order_by("date", "id")
        ),
        search=("description", "counterparty", "reference"),
    )
)

transfer.exportable(
    transfer.Exportable(
        kind="bankTransaction",
        label=_("Bank transaction"),
        permission=AccountingPerm.VIEW,
        columns=(
            ("id", lambda row: row.pk),
            ("kind", lambda row: row.kind),
            ("bankAccount", lambda row: row.bank_account.name),
            ("currency", lambda row: row.bank_account.currency),
            ("date", lambda row: row.date),
            ("paidIn", lambda row: _paid_in(row.amount, row.bank_account.currency)),
            ("paidOut", lambda row: _paid_out(row.amount, row.bank_account.currency)),
            ("contactName", lambda row: row.contact_name),
            ("reference", lambda row: row.reference),
            ("reconciled", lambda row: row.match_id is not None),
            ("voidedAt", lambda row: row.voided_at),
            ("createdAt", lambda row: row.created_at),
        ),
        rows=lambda actor: (
            BankTransaction.objects.restrict(actor, "view")
            .select_related("bank_account")
            .order_by("date", "id")
        ),
        search=("contact_name", "reference"),
    )
)
