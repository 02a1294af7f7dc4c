"""The Accounting settings page: the books' settings, the latest quotes, invoices and credit notes,
the bank accounts and their latest lines, the trial balance and the latest journal entries, read
from the ledger (what agents' tools posted shows here), and the Reports section (a period picker,
each report as a table, and its CSV and PDF exports). An accounting admin adds bank accounts."""

from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from apps.accounting.forms import BankAccountForm, DutiesForm, LockDateForm
from apps.accounting.lib import ledger
from apps.accounting.lib.exports import csv_bytes
from apps.accounting.lib.pdf import report_pdf
from apps.accounting.models import DraftJournal, Financial, JournalEntry, SalesDocument, TaxType
from apps.accounting.permissions import AccountingPerm
from apps.accounting.selectors import reconciliation, report_tables, reports
from apps.accounting.services import bank, banking, bankrules, journals, matching, register, sending, sync
from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.errors import invalid
from apps.core.pages import READ, chosen, page, paged


@page(AccountingPerm.VIEW, methods=READ)
def overview(request: AuthenticatedHttpRequest) -> HttpResponse:
    books = ledger.books()
    return render(
        request,
        "accounting/overview.html",
        {
            "nav": "accounting",
            "books": books,
            "balance": ledger.trial_balance(),
            "entries": JournalEntry.objects.select_related("journal").order_by("-date", "-id")[:50],
            "drafts": DraftJournal.objects.filter(status=DraftJournal.Status.AWAITING)
            .select_related("created_by")
            .order_by("-date", "-id")[:50],
            "tax_types": TaxType.objects.filter(archived=False),
            "documents": SalesDocument.objects.restrict(request.user).order_by("-issue_date", "-id")[:50],
            "register": register.page(actor=request.user),
            "sync": sync.page(actor=request.user),
            "bank_accounts": bank.summary(actor=request.user, bank=None, until=None),
            "financials": bank.financials(actor=request.user).order_by("-date", "-id")[:50],
            "bank_form": BankAccountForm() if can(request.user, AccountingPerm.ADMIN) else None,
            "lock_form": (
                LockDateForm(initial={"lock_date": books.lock_date})
                if can(request.user, AccountingPerm.ADMIN)
                else None
            ),
            "duties_form": (
                DutiesForm(initial={"separate_duties": books.separate_duties})
                if can(request.user, AccountingPerm.ADMIN)
                else None
            ),
            "may_send": can(request.user, AccountingPerm.SEND),
            "may_post": can(request.user, AccountingPerm.POST),
            **_reconciliation_context(request),
            **_reports_context(request),
        },
    )


def _statement_figures(source: Any) -> tuple[date, Decimal | None, list[str]]:
    """The statement's date (`on`, default today) and closing balance (`closing`, default none:
    the lines' running balance) the Reconciliation section was given, and what did not read."""
    today = timezone.localdate()
    problems = []
    on, closing = today, None
    given_day = str(source.get("on", "")).strip()
    if given_day:
        try:
            on = date.fromisoformat(given_day)
        except ValueError:
            problems.append(_("“%(value)s” is not a date (YYYY-MM-DD).") % {"value": given_day[:20]})
    given_balance = str(source.get("closing", "")).strip().replace(",", "")
    if given_balance:
        try:
            closing = Decimal(given_balance)
            if not closing.is_finite():
                raise InvalidOperation
        except InvalidOperation:
            closing = None
            problems.append(_("“%(value)s” is not an amount.") % {"value": given_balance[:20]})
    return on, closing, problems


def _reconciliation_context(request: AuthenticatedHttpRequest) -> dict[str, Any]:
    """The Reconciliation section: the chosen bank account (`bank`, default the first) at the
    statement's date (`on`, default today) against its closing balance (`closing`, if given)."""
    banks = list(bank.bank_accounts(request.user).order_by("account__code"))
    if not banks:
        return {"reconciliation": None}
    wanted = request.GET.get("bank", "")
    chosen_bank = next((account for account in banks if str(account.pk) == wanted), banks[0])
    on, closing, problems = _statement_figures(request.GET)
    found = reconciliation.reconciliation(
        actor=request.user, bank=chosen_bank, as_of=on, statement_balance=closing
    )
    shown = found.unmatched[:50]
    likely = reconciliation.likely_matches(
        actor=request.user, bank=chosen_bank, lines=shown, postings=found.postings
    )
    rows = [
        {"line": line, "suggestion": found.suggestions.get(line.pk), "likely": likely.get(line.pk, [])}
        for line in shown
    ]
    recent = matching.matches(actor=request.user, financial_id=None, invoice_id=None, bank=chosen_bank)
    return {
        "reconciliation": found,
        "reconciliation_banks": banks,
        "reconciliation_rows": rows,
        "reconciliation_recent": recent.prefetch_related("financials")[:10],
        "reconciliation_on": request.GET.get("on", "").strip()[:10] or on.isoformat(),
        "reconciliation_closing": request.GET.get("closing", "").strip()[:30],
        "reconciliation_problems": problems,
        "may_unmatch": can(request.user, AccountingPerm.DELETE),
    }


def _back_to_reconciliation(request: AuthenticatedHttpRequest, bank_id: int) -> HttpResponse:
    """Back to the Reconciliation section, on the bank account and statement figures it showed."""
    query: dict[str, Any] = {"bank": bank_id}
    for name in ("on", "closing"):
        value = request.POST.get(name, "").strip()
        if value:
            query[name] = value[:30]
    return redirect(reverse("accounting:overview") + "?" + urlencode(query) + "#reconciliation")


def period_of(
    request: AuthenticatedHttpRequest, *, strict: bool = False
) -> tuple[report_tables.Period, list[str]]:
    """The period the Reports section's picker asks for (`from`, `to`, `compare`): by default this
    month to today; a date that does not read, or a period that ends before it starts, is said (or,
    `strict`, refused)."""
    today = timezone.localdate()
    problems = []
    days = {}
    for name, default in (("from", today.replace(day=1)), ("to", today)):
        given = request.GET.get(name, "").strip()
        try:
            days[name] = date.fromisoformat(given) if given else default
        except ValueError:
            if strict:
                raise invalid(name, gettext_lazy("is not a date (YYYY-MM-DD)")) from None
            problems.append(_("“%(value)s” is not a date (YYYY-MM-DD).") % {"value": given[:20]})
            days[name] = default
    compare = chosen(request, "compare", ("period", "year")) or None
    if days["to"] < days["from"]:
        problems.append(_("The period ends before it starts."))
    return report_tables.Period(days["from"], days["to"], compare), problems


def _reports_context(request: AuthenticatedHttpRequest) -> dict[str, Any]:
    period, problems = period_of(request)
    if problems:
        return {"period": period, "period_problems": problems, "reports": []}
    lines = reports.ledger_lines(account=None, start=period.start, end=period.end)
    pager = paged(request, lines, per_page=50)
    window = list(pager["page"].object_list)
    base = ledger.books().base_currency
    opening = reports.opening_balances(start=period.start, accounts={line.account_id for line in window})
    documents = reports.documents_of({line.entry.source for line in window})
    return {
        "period": period,
        "reports": report_tables.section(request.user, period),
        "ledger_rows": [report_tables.ledger_row(line, opening, documents, base) for line in window],
        **pager,
    }


@page(AccountingPerm.VIEW, methods=READ)
def report_export(request: AuthenticatedHttpRequest, report: str, format: str) -> HttpResponse:
    """One report of the Reports section as CSV or PDF, for the period the section's picker gave
    (a period that ends before it starts is refused, with the reason)."""
    if report not in report_tables.REPORTS or format not in ("csv", "pdf"):
        raise Http404(report)
    period, _problems = period_of(request, strict=True)
    reports.check_period(period.start, period.end)
    title, heading, tables = report_tables.build(request.user, report, period)
    name = f"{report}-{period.end.isoformat()}.{format}"
    if format == "csv":
        content, kind = csv_bytes(tables, heading=[title, *heading]), "text/csv; charset=utf-8"
    else:
        content, kind = report_pdf(title=title, heading=heading, tables=tables), "application/pdf"
    response = HttpResponse(content, content_type=kind)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@page(AccountingPerm.ADMIN, methods=("POST",), back="accounting:overview")
def bank_account_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = BankAccountForm(request.POST)
    if not form.is_valid():
        problems = [f"{name}: {error}" for name, errors in form.errors.items() for error in errors]
        messages.error(request, "; ".join(problems))
        return redirect("accounting:overview")
    made = bank.bank_account_create(actor=request.user, **form.cleaned_data)
    messages.success(request, _("Bank account “%(name)s” added.") % {"name": made.name})
    return redirect("accounting:overview")


@page(AccountingPerm.POST, methods=("POST",), back="accounting:overview")
def reconcile_suggested(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """An unmatched statement line recorded as its bank rule suggests (money spent or received on
    the rule's account and tax type, for the line's whole amount, on its day) and reconciled."""
    line = Financial.objects.select_related("bank_account__account").fetch(request.user, pk, "change")
    found = bankrules.suggestions(actor=request.user, lines=[line]).get(line.pk)
    if found is None:
        messages.error(request, _("No bank rule suggests how to record this line."))
        return redirect("accounting:overview")
    rule = found.rule
    made = banking.transaction_record(
        actor=request.user,
        bank=line.bank_account,
        direction=found.direction,
        day=line.date,
        lines=[banking.LineData(rule.account.code, abs(line.rounded_amount), rule.tax_type.code, rule.name)],
        contact_name=rule.contact_name,
        reference=line.reference,
        financial=line,
    )
    messages.success(
        request,
        _("Bank line recorded as “%(rule)s” and reconciled (transaction %(id)s).")
        % {"rule": rule.name, "id": made.pk},
    )
    return redirect(reverse("accounting:overview") + f"?bank={line.bank_account_id}#reconciliation")


MATCH_KINDS = ("invoice", "bill", "payment", "transaction")


@page(AccountingPerm.POST, methods=("POST",), back="accounting:overview")
def reconcile_match(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """An unmatched statement line matched, through the matching service, to what the section
    offered (`target`: `invoice:<id>`, `bill:<id>` whole, `payment:<id>` recorded first or
    `transaction:<id>`, a bank transaction); the service's refusals are said and change nothing."""
    line = Financial.objects.fetch(request.user, pk, "view")
    kind, _sep, given = request.POST.get("target", "").partition(":")
    if kind not in MATCH_KINDS or not given.isdigit():
        raise invalid("target", gettext_lazy("name an invoice, bill, payment or bank transaction to match"))
    target = int(given)
    items = [matching.Item(kind, target)] if kind in ("invoice", "bill") else []
    made = matching.match(
        actor=request.user,
        financial_ids=[line.pk],
        items=items,
        payment_ids=[target] if kind == "payment" else None,
        transaction_ids=[target] if kind == "transaction" else None,
    )
    messages.success(
        request,
        _("Bank line of %(day)s matched (bank match %(id)s).")
        % {"day": line.date.isoformat(), "id": made.pk},
    )
    return _back_to_reconciliation(request, line.bank_account_id)


@page(AccountingPerm.DELETE, methods=("POST",), back="accounting:overview")
def reconcile_unmatch(request: AuthenticatedHttpRequest, pk: int) -> HttpResponse:
    """A match undone (the matching service's unmatch): its postings reversed, its lines freed."""
    made = matching.match_get(actor=request.user, match_id=pk)
    bank_id = made.financials.values_list("bank_account_id", flat=True).first()
    freed = matching.unmatch(actor=request.user, made=made)
    messages.success(
        request, _("Bank match %(id)s undone; %(count)s line(s) unmatched.") % {"id": pk, "count": len(freed)}
    )
    return _back_to_reconciliation(request, bank_id or 0)


@page(AccountingPerm.ADMIN, methods=("POST",), back="accounting:overview")
def lock_date(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The lock date set, moved or cleared (journals.lock_date_set's rules)."""
    form = LockDateForm(request.POST)
    if not form.is_valid():
        problems = [f"{name}: {error}" for name, errors in form.errors.items() for error in errors]
        messages.error(request, "; ".join(problems))
        return redirect("accounting:overview")
    day = form.cleaned_data["lock_date"]
    journals.lock_date_set(actor=request.user, lock_date=day)
    if day is None:
        messages.success(request, _("No period is locked now."))
    else:
        messages.success(request, _("The books are locked up to %(day)s.") % {"day": day.isoformat()})
    return redirect("accounting:overview")


@page(AccountingPerm.ADMIN, methods=("POST",), back="accounting:overview")
def duties(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Separation of duties on or off (journals.duties_set's rules)."""
    form = DutiesForm(request.POST)
    form.is_valid()  # a checkbox: anything but "on" is off
    on = bool(form.cleaned_data.get("separate_duties"))
    journals.duties_set(actor=request.user, on=on)
    if on:
        messages.success(request, _("Whoever created a document may no longer approve it."))
    else:
        messages.success(request, _("Whoever created a document may approve it again."))
    return redirect("accounting:overview")


@page(AccountingPerm.SEND, methods=("POST",), back="accounting:overview")
def chasing(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Automatic reminders of overdue invoices on (sent as the person asking) or off."""
    on = request.POST.get("on") == "1"
    sending.chase_automatically(actor=request.user, on=on)
    if on:
        messages.success(request, _("Overdue invoices are now chased each morning, as you."))
    else:
        messages.success(request, _("Overdue invoices are no longer chased automatically."))
    return redirect("accounting:overview")
