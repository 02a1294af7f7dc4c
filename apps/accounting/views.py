"""The Accounting settings page: the books' settings, the latest quotes, invoices and credit notes,
the bank accounts and their latest lines, the trial balance and the latest journal entries, read
from the ledger (what agents' tools posted shows here). An accounting admin adds bank accounts."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounting.forms import BankAccountForm, LockDateForm
from apps.accounting.lib import ledger
from apps.accounting.models import JournalEntry, SalesDocument, TaxType
from apps.accounting.permissions import AccountingPerm
from apps.accounting.services import bank, journals, register, sending, sync
from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, page


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
            "may_send": can(request.user, AccountingPerm.SEND),
        },
    )


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
