"""The Customer Service settings page: the ticket queue (by status, with SLA breaches) and each
ticket's thread (public replies and internal notes, status changes, escalations); for the area's
administrators, the support mailbox."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, chosen, page, paged
from apps.support import selectors, services
from apps.support.forms import SupportMailboxForm
from apps.support.models import SupportMailboxChange, Ticket
from apps.support.permissions import SupportPerm

SHOWS = ("live", "breached", *Ticket.Status.values)


@page(SupportPerm.VIEW, methods=READ)
def queue(request: AuthenticatedHttpRequest) -> HttpResponse:
    show = chosen(request, "show", SHOWS, "live")
    rows = Ticket.objects.restrict(request.user).select_related("assignee")
    if show == "live":
        rows = rows.filter(selectors.LIVE)
    elif show == "breached":
        rows = rows.filter(selectors.breached(services.timezone.now()))
    else:
        rows = rows.filter(status=show)
    rows = rows.order_by("-created_at", "-id")
    mailbox = services.support_mailbox()
    is_admin = can(request.user, SupportPerm.ADMIN)
    form = SupportMailboxForm(initial={"mailbox": mailbox}, actor=request.user) if is_admin else None
    return render(
        request,
        "support/queue.html",
        {
            "nav": "support",
            "show": show,
            "shows": [("live", _("Open")), ("breached", _("Breached")), *Ticket.Status.choices],
            "counts": selectors.overview(actor=request.user),
            "satisfaction": selectors.satisfaction(actor=request.user),
            "mailbox": mailbox,
            "form": form,
            "mailbox_changes": SupportMailboxChange.objects.select_related("actor")[:5] if is_admin else [],
            **paged(request, rows),
        },
    )


@page(SupportPerm.VIEW, methods=READ)
def ticket_detail(request: AuthenticatedHttpRequest, ticket_id: int) -> HttpResponse:
    ticket = Ticket.objects.select_related("assignee", "department", "policy", "follow_up_of").fetch(
        request.user, ticket_id
    )
    return render(
        request,
        "support/ticket.html",
        {
            "nav": "support",
            "ticket": ticket,
            "comments": ticket.comments.select_related("author", "ticket").order_by("created_at", "id")[:500],
            "changes": ticket.status_changes.select_related("actor")[:200],
            "events": ticket.events.select_related("actor").order_by("at", "id")[:200],
            "escalations": ticket.escalations.select_related("owner", "department")[:50],
            "rating": selectors.rating_of(ticket),
            "first_breached": ticket.first_reply_breached(),
            "resolution_breached": ticket.resolution_breached(),
        },
    )


@page(SupportPerm.ADMIN, methods=("POST",), back="support:queue")
def mailbox_choose(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = SupportMailboxForm(request.POST, actor=request.user)
    if form.is_valid():
        services.support_mailbox_set(actor=request.user, mailbox=form.cleaned_data["mailbox"])
        messages.success(request, _("The support mailbox is saved."))
    else:
        messages.error(request, _("Choose one of the shared mailboxes."))
    return redirect("support:queue")
