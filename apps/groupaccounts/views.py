"""The Group accounts settings page: the organisations with their contacts."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from apps.contacts import related
from apps.core.pages import READ, page
from apps.groupaccounts.models import GroupAccount
from apps.groupaccounts.permissions import GroupAccountsPerm


@page(GroupAccountsPerm.VIEW, methods=READ)
def account_list(request: HttpRequest) -> HttpResponse:
    rows = GroupAccount.objects.restrict(request.user).select_related("owner", "organisation")
    accounts = list(rows.order_by("name", "id")[:500])
    for account in accounts:
        account.shown_contacts = list(related.visible(request.user, account.contact_links)[:50])
    return render(request, "groupaccounts/list.html", {"nav": "group-accounts", "accounts": accounts})
