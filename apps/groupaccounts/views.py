"""The Group accounts settings page: the organisations with their contacts."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from apps.contacts import related
from apps.core.actors import can
from apps.groupaccounts import selectors
from apps.groupaccounts.permissions import GroupAccountsPerm


@login_required
def account_list(request: HttpRequest) -> HttpResponse:
    if not can(request.user, GroupAccountsPerm.VIEW):
        raise PermissionDenied
    accounts = list(selectors.account_visible(actor=request.user).order_by("name", "id")[:500])
    for account in accounts:
        account.shown_contacts = list(related.visible(request.user, account.contact_links)[:50])
    return render(request, "groupaccounts/list.html", {"nav": "group-accounts", "accounts": accounts})
