"""The Vault settings page: the items a person may see (metadata only), added, changed and deleted
here (a value is written, never shown), and the log of their use by people and agents."""

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, page, paged
from apps.vaults import services
from apps.vaults.forms import ItemForm
from apps.vaults.models import VaultItem, VaultUse
from apps.vaults.permissions import VaultsPerm


def _fields(form: ItemForm) -> dict[str, Any]:
    data = dict(form.cleaned_data)
    if not data.get("value"):
        data.pop("value", None)
    return data


def _refused(request: AuthenticatedHttpRequest, form: ItemForm) -> HttpResponse:
    problems = [f"{name}: {error}" for name, errors in form.errors.items() for error in errors]
    messages.error(request, "; ".join(problems))
    return redirect("vaults:items")


@page(VaultsPerm.VIEW, methods=READ)
def items(request: AuthenticatedHttpRequest) -> HttpResponse:
    rows = (
        VaultItem.objects.restrict(request.user)
        .select_related("owner")
        .prefetch_related("shared_roles")
        .order_by("name", "id")
    )
    context = paged(request, rows)
    changeable = set(
        VaultItem.objects.restrict(request.user, "change")
        .filter(pk__in=[item.pk for item in context["page"]])
        .values_list("pk", flat=True)
    )
    uses = VaultUse.objects.restrict(request.user).select_related("item", "actor").order_by("-at", "-id")[:50]
    return render(
        request,
        "vaults/items.html",
        {
            "nav": "vaults",
            **context,
            "changeable": changeable,
            "uses": list(uses),
            "may_add": can(request.user, VaultsPerm.EDIT),
            "form": ItemForm(),
        },
    )


@page(VaultsPerm.EDIT, methods=("POST",), back="vaults:items")
def add(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ItemForm(request.POST)
    if not form.is_valid():
        return _refused(request, form)
    made = services.item_create(actor=request.user, fields=_fields(form))
    messages.success(request, _("“%(name)s” is in the vault.") % {"name": made.name})
    return redirect("vaults:items")


@page(VaultsPerm.EDIT, methods=("GET", "POST"), back="vaults:items")
def edit(request: AuthenticatedHttpRequest, item_id: int) -> HttpResponse:
    item = VaultItem.objects.fetch(request.user, item_id, "change")
    if request.method == "POST":
        form = ItemForm(request.POST)
        if not form.is_valid():
            return _refused(request, form)
        services.item_update(actor=request.user, item=item, fields=_fields(form))
        messages.success(request, _("“%(name)s” is saved.") % {"name": item.name})
        return redirect("vaults:items")
    form = ItemForm(
        initial={
            "name": item.name,
            "kind": item.kind,
            "username": item.username,
            "description": item.description,
            "allowed_hosts": " ".join(item.allowed_hosts),
            "visibility": item.visibility,
            "shared_roles": list(item.shared_roles.all()),
            "expires_at": item.expires_at,
        }
    )
    return render(request, "vaults/edit.html", {"nav": "vaults", "item": item, "form": form})


@page(VaultsPerm.EDIT, methods=("POST",), back="vaults:items")
def delete(request: AuthenticatedHttpRequest, item_id: int) -> HttpResponse:
    item = VaultItem.objects.fetch(request.user, item_id, "delete")
    services.item_delete(actor=request.user, item=item)
    messages.success(request, _("“%(name)s” is deleted.") % {"name": item.name})
    return redirect("vaults:items")
