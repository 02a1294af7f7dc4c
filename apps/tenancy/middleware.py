"""Selects the workspace schema from the request's host (django-tenants), with our routing cache
and a plain 404 for hosts that are no workspace's."""

from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django_tenants.middleware.main import TenantMainMiddleware

from apps.tenancy import errors, routing
from apps.tenancy.models import Workspace

# Probes from load balancers and orchestrators may use any host name (or an IP); so may the
# metrics scraper (/metrics, which wants its own bearer token).
HEALTH_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})

NOT_FOUND_PAGE = (
    "<!doctype html><html lang=en><meta charset=utf-8><title>Not found</title>"
    "<h1>Not found</h1><p>There is no workspace at this address.</p></html>"
)


class WorkspaceMiddleware(TenantMainMiddleware):
    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        response: HttpResponse | None = super().process_request(request)
        workspace = getattr(request, "tenant", None)
        if response is None and workspace is not None and workspace.is_moving:
            # Being moved to another database server: nothing may be read or written meanwhile.
            return moving_response()
        return response

    def get_tenant(self, domain_model: Any, hostname: str) -> Workspace:
        workspace = routing.workspace_for_host(hostname)
        if workspace is None:
            raise domain_model.DoesNotExist
        return workspace

    def no_tenant_found(self, request: HttpRequest, hostname: str) -> HttpResponse | None:
        if request.path in HEALTH_PATHS:
            self.setup_url_routing(request=request, force_public=True)
            return None
        return HttpResponseNotFound(NOT_FOUND_PAGE)


def moving_response() -> HttpResponse:
    error = errors.WorkspaceMoving()
    return JsonResponse(error.as_body(), status=error.http_status, headers=error.headers)
