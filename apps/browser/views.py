"""The Browser sessions settings page: a person's browser sessions (every person's, to the area's
admins) with what was done in each, and a way to end an open one."""

from django.contrib import messages
from django.db import transaction
from django.db.models import Prefetch
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.browser import engine, errors, services
from apps.browser.models import BrowserAction, BrowserSession
from apps.browser.permissions import BrowserPerm
from apps.core.pages import READ, chosen, page, paged


@page(BrowserPerm.VIEW, methods=READ)
def sessions(request: AuthenticatedHttpRequest) -> HttpResponse:
    status = chosen(request, "status", BrowserSession.Status.values)
    rows = BrowserSession.objects.restrict(request.user).select_related("owner")
    if status:
        rows = rows.filter(status=status)
    actions = BrowserAction.objects.order_by("-created_at", "-id")
    rows = rows.prefetch_related(Prefetch("actions", queryset=actions))
    try:
        engine.chromium()
        browser = ""
    except errors.NoBrowser as missing:
        browser = missing.message
    return render(
        request,
        "browser/sessions.html",
        {
            "nav": "browser",
            **paged(request, rows.order_by("-started_at", "-id")),
            "statuses": list(BrowserSession.Status.choices),
            "status": status,
            "no_browser": browser,
        },
    )


@page(BrowserPerm.VIEW, methods=("POST",), back="browser:sessions")
def end(request: AuthenticatedHttpRequest, session_id: int) -> HttpResponse:
    with transaction.atomic():
        session = (
            BrowserSession.objects.restrict(request.user, "change")
            .select_for_update()
            .filter(pk=session_id, status=BrowserSession.Status.OPEN)
            .first()
        )
        if session is None:
            raise Http404
        # Who ended it is said by role, never by address: the row is its owner's, kept after
        # the person who ended it is erased.
        by_owner = session.owner_id == request.user.pk
        services.end(session, _("ended by its owner") if by_owner else _("ended by an administrator"))
    messages.success(request, _("The browser session is ended."))
    return redirect("browser:sessions")
