"""The gateway's part of the settings pages: redelivering a webhook, and sending a test event, from
the API key's page (the deliveries themselves are listed there, templates/gateway/_key_deliveries
.html)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.apikeys import selectors as apikeys_selectors
from apps.core.errors import AppError, NotFound
from apps.core.observability import current_request_id
from apps.gateway import deliveries, selectors


@require_POST
@login_required
def redeliver(request: AuthenticatedHttpRequest, key_id: int, delivery_id: int) -> HttpResponse:
    try:
        delivery = selectors.delivery_get(user=request.user, key_id=key_id, delivery_id=delivery_id)
    except NotFound as error:
        raise Http404 from error
    deliveries.redeliver(delivery=delivery)
    messages.success(
        request,
        _("The webhook of conversation %(uuid)s is being sent again.") % {"uuid": delivery.conversation_uuid},
    )
    return redirect(reverse("apikeys:detail", kwargs={"key_id": key_id}) + "#webhook-deliveries")


@require_POST
@login_required
def send_test_event(request: AuthenticatedHttpRequest, key_id: int) -> HttpResponse:
    try:
        key = apikeys_selectors.api_key_get(user=request.user, key_id=key_id)
    except NotFound as error:
        raise Http404 from error
    try:
        deliveries.send_test_event(key=key, request_id=current_request_id() or "")
    except AppError as error:
        messages.error(request, str(error.message))
    else:
        messages.success(
            request, _("A test event is on its way to the webhook URL: its attempt shows below.")
        )
    return redirect(reverse("apikeys:detail", kwargs={"key_id": key_id}) + "#webhook-deliveries")
