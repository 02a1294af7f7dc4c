"""Settings → Automations: the listeners a person may see with their last runs, pause and resume,
failed runs retried; and each listener's inbound webhook (no sign-in: its HMAC signature is the
credential)."""

import logging

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core import json_input
from apps.core.actors import can
from apps.core.pages import READ, chosen, page, paged
from apps.core.workspaces import has_area
from apps.listeners import selectors, services
from apps.listeners.lib import signing
from apps.listeners.models import Listener, Run
from apps.listeners.permissions import ListenersPerm

logger = logging.getLogger(__name__)
MAX_WEBHOOK_BYTES = 256 * 1024
PAUSED_RETRY_SECONDS = 300


@page(ListenersPerm.VIEW, methods=READ)
def automations(request: AuthenticatedHttpRequest) -> HttpResponse:
    status = chosen(request, "status", Listener.Status.values)
    context = paged(request, selectors.listeners(request.user, status=status or None))
    shown = list(context["page"])
    runs: dict[int, list[Run]] = {listener.pk: [] for listener in shown}
    for run in Run.objects.filter(listener__in=shown).order_by("-created_at", "-id")[
        : 10 * max(1, len(shown))
    ]:
        if len(runs[run.listener_id]) < 5:
            runs[run.listener_id].append(run)
    context["shown"] = [(listener, runs[listener.pk]) for listener in shown]
    return render(
        request,
        "listeners/automations.html",
        {
            "nav": "listeners",
            **context,
            "statuses": list(Listener.Status.choices),
            "status": status,
            "may_edit": can(request.user, ListenersPerm.EDIT),
            "may_activate": can(request.user, ListenersPerm.ACTIVATE),
        },
    )


@page(ListenersPerm.EDIT, methods=("POST",))
def pause(request: AuthenticatedHttpRequest, listener_id: int) -> HttpResponse:
    listener = Listener.objects.fetch(request.user, listener_id, "change")
    services.listener_pause(actor=request.user, listener=listener)
    messages.success(request, _("The listener is paused."))
    return redirect("listeners:automations")


@page(ListenersPerm.ACTIVATE, methods=("POST",))
def resume(request: AuthenticatedHttpRequest, listener_id: int) -> HttpResponse:
    """Resumes with the approvals given at activation: a flow changed since is activated again
    through activateListener, where its risky steps are approved."""
    listener = Listener.objects.fetch(request.user, listener_id, "change")
    approved = listener.approved_steps if listener.approved_version == listener.version else []
    services.listener_activate(actor=request.user, listener=listener, approve=list(approved or []))
    messages.success(request, _("The listener is active again."))
    return redirect("listeners:automations")


@page(ListenersPerm.EDIT, methods=("POST",))
def retry(request: AuthenticatedHttpRequest, run_id: int) -> HttpResponse:
    run = selectors.run_of(request.user, run_id, "change")
    services.run_retry(actor=request.user, run=run)
    messages.success(request, _("The run is queued again from the step that failed."))
    return redirect("listeners:automations")


@csrf_exempt
@require_POST
def webhook(request: HttpRequest, token: str) -> HttpResponse:
    """An inbound webhook: 401 and nothing run unless signed with the listener's secret within the
    replay window; 404 for no active or paused webhook listener at this address; 503 with
    Retry-After while it is paused (the sender delivers again); 202 once queued (200 for a
    delivery id seen before: nothing runs twice)."""
    if not has_area("listeners"):
        return JsonResponse({"error": "not found"}, status=404)
    listener = Listener.objects.filter(
        webhook_token=token, trigger_kind=Listener.Trigger.WEBHOOK, deleted_at__isnull=True
    ).first()
    if listener is None or listener.status not in (Listener.Status.ACTIVE, Listener.Status.PAUSED):
        return JsonResponse({"error": "not found"}, status=404)
    body = request.body[: MAX_WEBHOOK_BYTES + 1]
    problem = signing.problem(
        services.webhook_secret(listener),
        request.headers.get(signing.TIMESTAMP_HEADER, ""),
        request.headers.get(signing.SIGNATURE_HEADER, ""),
        body,
    )
    if problem:
        logger.info("listener %s: webhook refused (%s)", listener.pk, problem)
        return JsonResponse({"error": "unauthorized", "detail": problem}, status=401)
    if listener.status == Listener.Status.PAUSED:
        # A sender delivers again on a 5xx (as Stripe and GitHub do): nothing is lost while paused.
        paused = JsonResponse(
            {"error": "unavailable", "detail": "the listener is paused; deliver again later"}, status=503
        )
        paused["Retry-After"] = str(PAUSED_RETRY_SECONDS)
        return paused
    if len(body) > MAX_WEBHOOK_BYTES:
        return JsonResponse({"error": "payload too large"}, status=413)
    try:
        # What a run keeps: JSON that PostgreSQL stores (no NUL, no NaN, no number past 64 bits).
        data = json_input.loads(body or b"{}")
    except json_input.JsonRefused as refused:
        detail = refused.message if not refused.syntax else "the body is not JSON"
        return JsonResponse({"error": "the body is not JSON that can be kept", "detail": detail}, status=400)
    delivery = request.headers.get("X-Atrium-Delivery", "")[:100] or signing.signature("", "", body)[7:39]
    run = services.fire(
        listener,
        key=f"webhook:{delivery}",
        source="webhook",
        payload={"body": data, "deliveryId": delivery},
    )
    if run is None:
        return JsonResponse({"accepted": False, "detail": "delivered before, or filtered out"}, status=200)
    return JsonResponse({"accepted": True, "run": run.pk}, status=202)
