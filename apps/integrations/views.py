"""Settings → Integrations: every member sees which providers are set up and links to each area's
recent activity; workspace administrators give the workspace's own credentials and test them."""

from django.contrib import messages
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.accounts.permissions import WorkspacePerm
from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, no_store, page
from apps.integrations import selectors, services

BACK = "integrations:integrations"


@page(methods=READ)
def integrations(request: AuthenticatedHttpRequest) -> HttpResponse:
    return no_store(
        render(
            request,
            "integrations/integrations.html",
            {
                "nav": "integrations",
                "areas": selectors.overview(request.user),
                "can_edit": can(request.user, WorkspacePerm.MANAGE),
            },
        )
    )


@page(WorkspacePerm.MANAGE, methods=("POST",), back=BACK)
def save(request: AuthenticatedHttpRequest) -> HttpResponseRedirect:
    name = request.POST.get("name", "")
    if "reset" in request.POST:
        services.setting_reset(name=name)
        messages.success(request, _("%(name)s is the server's again.") % {"name": name})
    else:
        services.setting_save(name=name, value=request.POST.get("value", ""))
        messages.success(request, _("%(name)s is saved for this workspace.") % {"name": name})
    return HttpResponseRedirect(reverse(BACK))


@page(WorkspacePerm.MANAGE, methods=("POST",), back=BACK)
def test(request: AuthenticatedHttpRequest) -> HttpResponseRedirect:
    area, provider = request.POST.get("area", ""), request.POST.get("provider", "")
    outcome = services.provider_test(area=area, provider=provider)
    words = _("Test of %(provider)s: %(outcome)s") % {"provider": provider, "outcome": outcome.words}
    (messages.success if outcome.ok else messages.error)(request, words)
    return HttpResponseRedirect(reverse(BACK))
