"""The Accounting settings page: the books' settings, the latest quotes, invoices and credit notes,
the trial balance and the latest journal entries, read from the ledger (what agents' tools
posted shows here)."""

from django.http import HttpResponse
from django.shortcuts import render

from apps.accounting import ledger, register
from apps.accounting.models import JournalEntry, SalesDocument, TaxType
from apps.accounting.permissions import AccountingPerm
from apps.accounts.requests import AuthenticatedHttpRequest
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
        },
    )
