"""Settings → Agent teams: a person's teams with their members, kits, spend and log, and the
tool calls members asked for that wait for the person's approval (approved here: run as the
person, who confirmed it; or denied)."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.pages import READ, page
from apps.teams import services
from apps.teams.models import AgentTeam, ProjectMessage
from apps.teams.permissions import TeamsPerm


@page(TeamsPerm.VIEW, methods=READ)
def teams(request: AuthenticatedHttpRequest) -> HttpResponse:
    rows = list(
        AgentTeam.objects.restrict(request.user).filter(deleted_at__isnull=True).prefetch_related("members")
    )
    log = (
        ProjectMessage.objects.filter(project__team__in=rows)
        .select_related("member", "author", "project__team")
        .order_by("-id")[:100]
    )
    pending = (
        ProjectMessage.objects.filter(project__team__in=rows, approval=ProjectMessage.Approval.PENDING)
        .select_related("member", "project__team")
        .order_by("id")
    )
    return render(
        request,
        "teams/teams.html",
        {"nav": "teams", "teams": rows, "log": list(log), "pending": list(pending)},
    )


@page(TeamsPerm.RUN, methods=("POST",), back="teams:teams")
def decide(request: AuthenticatedHttpRequest, message_id: int) -> HttpResponse:
    message = ProjectMessage.objects.select_related("project__team").fetch(request.user, message_id, "change")
    approve = request.POST.get("decision") == "approve"
    services.approval_decide(actor=request.user, message=message, approve=approve)
    messages.success(request, _("Approved and run.") if approve else _("Denied."))
    return redirect("teams:teams")
