"""The Customer Service settings page: the ticket queue (by status, with SLA breaches) and each
ticket's thread (public replies and internal notes, status changes, escalations); for the area's
administrators, the support mailbox. A ticket's page answers it (a reply or a note, filled from a
canned reply if one is chosen); the canned replies have a page of their own."""

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.errors import FieldInvalid
from apps.core.pages import READ, chosen, page, paged
from apps.support import placeholders, selectors
from apps.support.forms import AssigneeForm, CannedReplyForm, ReplyForm, SlaPolicyForm, SupportMailboxForm
from apps.support.models import CannedReply, Priority, SupportMailboxChange, Ticket
from apps.support.permissions import SupportPerm
from apps.support.services import canned_replies, comments, inbound, policies, tickets
from apps.support.services.sla import policy_for

SHOWS = ("live", "breached", *Ticket.Status.values)


@page(SupportPerm.VIEW, methods=READ)
def queue(request: AuthenticatedHttpRequest) -> HttpResponse:
    show = chosen(request, "show", SHOWS, "live")
    rows = Ticket.objects.restrict(request.user).select_related("assignee")
    if show == "live":
        rows = rows.filter(selectors.LIVE)
    elif show == "breached":
        rows = rows.filter(selectors.breached(timezone.now()))
    else:
        rows = rows.filter(status=show)
    rows = rows.order_by("-created_at", "-id")
    mailbox = tickets.support_mailbox()
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
    may_answer = can(request.user, SupportPerm.EDIT) and ticket.status != Ticket.Status.CLOSED
    replies = selectors.canned_replies(actor=request.user) if may_answer else CannedReply.objects.none()
    chosen_reply = None
    initial: dict[str, object] = {}
    if may_answer and request.GET.get("canned", "").isdigit():
        # Filled in here, editable before it is sent; its actions go with it (canned_use).
        chosen_reply = replies.filter(pk=int(request.GET["canned"])).first()
        if chosen_reply is not None:
            text = placeholders.render(chosen_reply.body, ticket=ticket, agent=request.user)
            initial = {"text": text, "canned": chosen_reply.pk}
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
            "reply_form": ReplyForm(initial=initial) if may_answer else None,
            "assignee_form": (
                AssigneeForm(initial={"assignee": ticket.assignee_id}, workers=selectors.workers())
                if may_answer
                else None
            ),
            "canned_replies": replies[:200],
            "chosen_reply": chosen_reply,
        },
    )


@page(SupportPerm.EDIT, methods=("POST",))
def ticket_reply(request: AuthenticatedHttpRequest, ticket_id: int) -> HttpResponse:
    ticket = Ticket.objects.select_related("mailbox", "policy", "assignee").fetch(
        request.user, ticket_id, "change"
    )
    form = ReplyForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Write the reply or note."))
        return redirect("support:ticket", ticket.pk)
    text, internal = form.cleaned_data["text"], form.cleaned_data["internal"]
    status = form.cleaned_data["status"] or None
    if form.cleaned_data["canned"]:
        canned = CannedReply.objects.fetch(request.user, form.cleaned_data["canned"])
        with transaction.atomic():
            canned_replies.canned_use(
                actor=request.user, ticket=ticket, canned=canned, internal=internal, text=text
            )
            if status is not None:
                comments.status_set(actor=request.user, ticket=ticket, status=status)
    else:
        comments.ticket_respond(
            actor=request.user, ticket=ticket, text=text, internal=internal, status=status
        )
    messages.success(request, _("The note is added.") if internal else _("The reply is sent."))
    return redirect("support:ticket", ticket.pk)


@page(SupportPerm.VIEW, methods=READ)
def canned_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    may_edit = can(request.user, SupportPerm.EDIT)
    form = CannedReplyForm(may_share=CannedReply.access.may_share(request.user)) if may_edit else None
    return render(
        request,
        "support/canned_replies.html",
        {
            "nav": "support",
            "form": form,
            "may_edit": may_edit,
            "may_share": CannedReply.access.may_share(request.user),
            **paged(request, selectors.canned_replies(actor=request.user, query=request.GET.get("q", ""))),
        },
    )


@page(SupportPerm.EDIT, methods=("POST",), back="support:canned_replies")
def canned_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = CannedReplyForm(request.POST, may_share=CannedReply.access.may_share(request.user))
    if not form.is_valid():
        messages.error(request, _("Give the canned reply a title and a body."))
        return redirect("support:canned_replies")
    canned_replies.canned_create(actor=request.user, fields=form.service_fields())
    messages.success(request, _("The canned reply is saved."))
    return redirect("support:canned_replies")


@page(SupportPerm.EDIT)
def canned_edit(request: AuthenticatedHttpRequest, canned_id: int) -> HttpResponse:
    canned = CannedReply.objects.fetch(request.user, canned_id, "change")
    may_share = CannedReply.access.may_share(request.user)
    if request.method == "POST":
        form = CannedReplyForm(request.POST, may_share=may_share)
        if form.is_valid():
            canned_replies.canned_update(actor=request.user, canned=canned, fields=form.service_fields())
            messages.success(request, _("The canned reply is saved."))
            return redirect("support:canned_replies")
    else:
        form = CannedReplyForm(
            initial={
                "title": canned.title,
                "body": canned.body,
                "shared": canned.shared,
                "set_status": canned.set_status,
                "set_priority": canned.set_priority,
                "add_tags": ", ".join(canned.add_tags),
            },
            may_share=may_share,
        )
    return render(request, "support/canned_reply.html", {"nav": "support", "canned": canned, "form": form})


@page(SupportPerm.EDIT, methods=("POST",), back="support:canned_replies")
def canned_delete(request: AuthenticatedHttpRequest, canned_id: int) -> HttpResponse:
    canned = CannedReply.objects.fetch(request.user, canned_id, "delete")
    canned_replies.canned_delete(actor=request.user, canned=canned)
    messages.success(request, _("The canned reply is deleted."))
    return redirect("support:canned_replies")


@page(SupportPerm.ADMIN, methods=("POST",), back="support:queue")
def mailbox_choose(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = SupportMailboxForm(request.POST, actor=request.user)
    if form.is_valid():
        inbound.support_mailbox_set(actor=request.user, mailbox=form.cleaned_data["mailbox"])
        messages.success(request, _("The support mailbox is saved."))
    else:
        messages.error(request, _("Choose one of the shared mailboxes."))
    return redirect("support:queue")


@page(SupportPerm.VIEW, methods=READ)
def policy_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    rows = [(Priority(priority), policy_for(priority)) for priority in reversed(Priority.values)]
    return render(
        request,
        "support/policies.html",
        {"nav": "support", "rows": rows, "may_edit": can(request.user, SupportPerm.ADMIN)},
    )


def _priority(priority: str) -> Priority:
    if priority not in Priority.values:
        raise Http404(_("No such priority."))
    return Priority(priority)


@page(SupportPerm.ADMIN, back="support:policies")
def policy_edit(request: AuthenticatedHttpRequest, priority: str) -> HttpResponse:
    chosen_priority = _priority(priority)
    policy = policy_for(chosen_priority.value)
    if request.method == "POST":
        form = SlaPolicyForm(request.POST)
        if form.is_valid():
            try:
                policies.policy_save(
                    actor=request.user, priority=chosen_priority.value, fields=form.cleaned_data
                )
            except FieldInvalid as refused:
                field = refused.data["field"]
                form.add_error(field if field in form.fields else None, str(refused.data["problem"]))
            else:
                messages.success(request, _("The SLA policy is saved: tickets opened from now on take it."))
                return redirect("support:policies")
    else:
        form = SlaPolicyForm.of(policy)
    return render(
        request,
        "support/policy.html",
        {"nav": "support", "priority": chosen_priority, "policy": policy, "form": form},
    )


@page(SupportPerm.ADMIN, methods=("POST",), back="support:policies")
def policy_remove(request: AuthenticatedHttpRequest, priority: str) -> HttpResponse:
    chosen_priority = _priority(priority)
    if policies.policy_remove(actor=request.user, priority=chosen_priority.value):
        messages.success(
            request, _("The SLA policy is removed: new tickets of that priority have no targets.")
        )
    return redirect("support:policies")


@page(SupportPerm.EDIT, methods=("POST",))
def ticket_assign(request: AuthenticatedHttpRequest, ticket_id: int) -> HttpResponse:
    ticket = Ticket.objects.select_related("assignee", "policy").fetch(request.user, ticket_id, "change")
    form = AssigneeForm(request.POST, workers=selectors.workers())
    if not form.is_valid():
        messages.error(request, _("Choose one of the people who work tickets, or nobody."))
        return redirect("support:ticket", ticket.pk)
    changed = tickets.ticket_update(
        actor=request.user, ticket=ticket, fields={"assignee": form.cleaned_data["assignee"]}
    )
    if changed:
        messages.success(
            request, _("The ticket is given to {who}.").format(who=ticket.assignee or _("nobody"))
        )
    return redirect("support:ticket", ticket.pk)


@page(SupportPerm.EDIT, methods=("POST",))
def ticket_close(request: AuthenticatedHttpRequest, ticket_id: int) -> HttpResponse:
    ticket = Ticket.objects.select_related("policy").fetch(request.user, ticket_id, "change")
    tickets.ticket_close(actor=request.user, ticket=ticket)
    messages.success(request, _("The ticket is closed: a new message from the customer opens a follow-up."))
    return redirect("support:ticket", ticket.pk)
