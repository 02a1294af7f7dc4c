"""The gateway's part of the settings pages: redelivering a webhook from the API key's page (the
deliveries themselves are listed there, templates/gateway/_key_deliveries.html)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.errors import NotFound
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
