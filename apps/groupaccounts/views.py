"""The Group accounts settings page: the organisations with their contacts, and for those who may
delete them, the archived ones to restore."""

from django.contrib import messages
from django.db.models import Prefetch
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.contacts import api as contacts_api
from apps.core.actors import can
from apps.core.pages import READ, page
from apps.groupaccounts import selectors, services
from apps.groupaccounts.models import GroupAccount, GroupAccountContact
from apps.groupaccounts.permissions import GroupAccountsPerm


@page(GroupAccountsPerm.VIEW, methods=READ)
def account_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    contacts = contacts_api.visible(request.user, GroupAccountContact.objects.all())
    rows = (
        GroupAccount.objects.restrict(request.user)
        .select_related("owner")
        .prefetch_related(Prefetch("contact_links", queryset=contacts[:50], to_attr="shown_contacts"))
    )
    accounts = selectors.with_organisations(request.user, list(rows.order_by("name", "id")[:500]))
    archived = (
        GroupAccount.objects.restrict(request.user, "delete", trash="only").order_by("-deleted_at", "id")[
            :200
        ]
        if can(request.user, GroupAccountsPerm.DELETE)
        else []
    )
    return render(
        request,
        "groupaccounts/list.html",
        {"nav": "group-accounts", "accounts": accounts, "archived": archived},
    )


@page(GroupAccountsPerm.DELETE, methods=("POST",), back="groupaccounts:list")
def account_restore(request: AuthenticatedHttpRequest, account_id: int) -> HttpResponse:
    account = GroupAccount.objects.fetch(request.user, account_id, "delete", trash=True)
    services.account_restore(actor=request.user, account=account)
    messages.success(request, _("The group account is restored."))
    return redirect("groupaccounts:list")
