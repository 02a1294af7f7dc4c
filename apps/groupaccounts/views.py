"""The Group accounts settings page: the organisations with their contacts."""

from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.contacts import related
from apps.core.pages import READ, page
from apps.groupaccounts.models import GroupAccount, GroupAccountContact
from apps.groupaccounts.permissions import GroupAccountsPerm


@page(GroupAccountsPerm.VIEW, methods=READ)
def account_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    contacts = related.visible(request.user, GroupAccountContact.objects.all())
    rows = (
        GroupAccount.objects.restrict(request.user)
        .select_related("owner", "organisation")
        .prefetch_related(Prefetch("contact_links", queryset=contacts[:50], to_attr="shown_contacts"))
    )
    accounts = list(rows.order_by("name", "id")[:500])
    return render(request, "groupaccounts/list.html", {"nav": "group-accounts", "accounts": accounts})
