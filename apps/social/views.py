"""The Social accounts settings page: the connected accounts (connected and disconnected here by
the workspace's administrators) and the posts people and agents sent or scheduled through them,
with their state, reason and link."""

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from apps.accounts.permissions import WorkspacePerm
from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.errors import AppError
from apps.core.pages import chosen, page, paged
from apps.social import services
from apps.social.forms import ConnectForm
from apps.social.models import SocialAccount, SocialPost


def _form_error(form: ConnectForm, error: AppError) -> None:
    """A service's refusal, shown on the form field it is about."""
    fields = error.details if isinstance(error.details, dict) else {}
    placed = False
    for field, problems in fields.items():
        if field in form.fields:
            form.add_error(field, problems if isinstance(problems, list) else [str(problems)])
            placed = True
    if not placed:
        form.add_error(None, str(error.message))


@page(methods=("GET", "POST"))
def accounts(request: AuthenticatedHttpRequest) -> HttpResponse:
    may_manage = can(request.user, WorkspacePerm.MANAGE)
    form = ConnectForm(request.POST or None)
    if request.method == "POST":
        if not may_manage:
            raise PermissionDenied
        if form.is_valid():
            try:
                made = services.account_connect(actor=request.user, **form.cleaned_data)
            except AppError as error:
                _form_error(form, error)
            else:
                messages.success(request, _("%(account)s is connected.") % {"account": made})
                return redirect("social:accounts")
    state = chosen(request, "state", SocialPost.State.values)
    rows = SocialPost.objects.select_related("account", "author")
    if state:
        rows = rows.filter(state=state)
    context: dict[str, Any] = paged(request, rows.order_by("-scheduled_at", "-id"))
    return render(
        request,
        "social/accounts.html",
        {
            "nav": "social",
            **context,
            "accounts": SocialAccount.objects.filter(disconnected_at__isnull=True).select_related(
                "connected_by"
            ),
            "form": form,
            "may_manage": may_manage,
            "states": SocialPost.State.choices,
            "state": state,
        },
        status=400 if form.errors else 200,
    )


@page(WorkspacePerm.MANAGE, methods=("POST",))
def disconnect(request: AuthenticatedHttpRequest, account_id: int) -> HttpResponse:
    account = get_object_or_404(SocialAccount, pk=account_id)
    if account.disconnected_at is not None:
        messages.error(request, _("That account is not connected."))
        return redirect("social:accounts")
    failed = services.account_disconnect(actor=request.user, account=account)
    messages.success(
        request,
        _("%(account)s is disconnected; %(count)d scheduled posts will not go out.")
        % {"account": account, "count": failed},
    )
    return redirect("social:accounts")
