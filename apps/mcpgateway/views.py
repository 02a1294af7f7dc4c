"""The Connected MCP servers settings page: the servers a person may use with their status, the
tools each listed, the log of calls (a person's own; every call to administrators); administrators
register, change and remove servers here."""

from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.core.actors import can
from apps.core.pages import READ, page
from apps.mcpgateway import services
from apps.mcpgateway.forms import ServerForm
from apps.mcpgateway.models import ExternalServer, ServerCall
from apps.mcpgateway.permissions import McpGatewayPerm
from apps.vaults import api as vaults


def _refused(request: AuthenticatedHttpRequest, form: ServerForm) -> HttpResponse:
    problems = [f"{name}: {error}" for name, errors in form.errors.items() for error in errors]
    messages.error(request, "; ".join(problems))
    return redirect("mcpgateway:servers")


@page(McpGatewayPerm.VIEW, methods=READ)
def servers(request: AuthenticatedHttpRequest) -> HttpResponse:
    rows = ExternalServer.objects.restrict(request.user).prefetch_related("tools", "roles").order_by("name")
    calls = ServerCall.objects.restrict(request.user).select_related("server", "actor")[:50]
    is_admin = can(request.user, McpGatewayPerm.ADMIN)
    return render(
        request,
        "mcpgateway/servers.html",
        {
            "nav": "mcpgateway",
            "servers": list(rows),
            "calls": list(calls),
            "is_admin": is_admin,
            "form": ServerForm(actor=request.user) if is_admin else None,
        },
    )


def _fields(form: ServerForm) -> dict[str, Any]:
    return dict(form.cleaned_data)


@page(McpGatewayPerm.ADMIN, methods=("POST",), back="mcpgateway:servers")
def add(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = ServerForm(request.POST, actor=request.user)
    if not form.is_valid():
        return _refused(request, form)
    made = services.server_create(actor=request.user, fields=_fields(form))
    messages.success(request, _("MCP server “%(name)s” is registered.") % {"name": made.name})
    return redirect("mcpgateway:servers")


@page(McpGatewayPerm.ADMIN, methods=("GET", "POST"), back="mcpgateway:servers")
def edit(request: AuthenticatedHttpRequest, server_id: int) -> HttpResponse:
    server = ExternalServer.objects.fetch(request.user, server_id, "change")
    hidden = server.credential_id is not None and not (
        vaults.items_for(request.user).filter(pk=server.credential_id).exists()
    )
    if request.method == "POST":
        form = ServerForm(request.POST, actor=request.user, hidden_credential=hidden)
        if not form.is_valid():
            return _refused(request, form)
        services.server_update(actor=request.user, server=server, fields=_fields(form))
        messages.success(request, _("MCP server “%(name)s” is saved.") % {"name": server.name})
        return redirect("mcpgateway:servers")
    form = ServerForm(
        actor=request.user,
        hidden_credential=hidden,
        initial={
            "name": server.name,
            "title": server.title,
            "url": server.url,
            "description": server.description,
            "credential": server.credential_id,
            "auth_header": server.auth_header,
            "auth_scheme": server.auth_scheme,
            "visibility": server.visibility,
            "roles": list(server.roles.all()),
            "trusted": server.trusted,
            "enabled": server.enabled,
            "allowed_tools": " ".join(server.allowed_tools),
            "denied_tools": " ".join(server.denied_tools),
        },
    )
    return render(request, "mcpgateway/edit.html", {"nav": "mcpgateway", "server": server, "form": form})


@page(McpGatewayPerm.ADMIN, methods=("POST",), back="mcpgateway:servers")
def delete(request: AuthenticatedHttpRequest, server_id: int) -> HttpResponse:
    server = ExternalServer.objects.fetch(request.user, server_id, "delete")
    services.server_delete(actor=request.user, server=server)
    messages.success(request, _("MCP server “%(name)s” is removed.") % {"name": server.name})
    return redirect("mcpgateway:servers")
