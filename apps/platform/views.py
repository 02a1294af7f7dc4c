"""The Platform area's pages: where an outside service sends the person back after they allowed a
connection (connectIntegration; apps.platform.connections)."""

from typing import cast

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from apps.core.actors import Actor
from apps.core.pages import page
from apps.platform import connections, providers
from apps.platform.permissions import PlatformPerm


@never_cache
@page(PlatformPerm.INTEGRATE, methods=("GET",))
def integration_callback(request: HttpRequest) -> HttpResponse:
    """The OAuth 2.0 redirection endpoint (RFC 6749 3.1.2): completes the grant of `state`, for the
    person signed in, then shows the settings' home with what happened."""
    connection = connections.complete(
        actor=cast(Actor, request.user),
        state=request.GET.get("state", "")[:100],
        code=request.GET.get("code", "")[:2000],
        error=request.GET.get("error", "")[:100],
    )
    name = providers.get(connection.provider).name
    messages.success(
        request, _("%(name)s is connected. You can go back to your conversation.") % {"name": name}
    )
    return HttpResponseRedirect(reverse("settings:home"))
