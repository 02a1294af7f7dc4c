"""Health checks and the error pages every host shares."""

import functools
import logging
import sys
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import set_urlconf
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from apps.core import errors
from apps.core import metrics as operator_metrics
from apps.core.db import connection
from apps.core.shared_redis import SharedRedis

logger = logging.getLogger(__name__)
_redis_client = SharedRedis(timeout=1)


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is alive (no dependency is consulted)."""
    return JsonResponse({"status": "ok"})


def readiness() -> dict[str, str]:
    """Whether PostgreSQL and Redis answer (also the Celery worker's /readyz, apps.core.worker_http)."""
    checks = {"database": "ok", "redis": "ok"}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception:
        logger.warning("readiness: the database does not answer", exc_info=True)
        checks["database"] = "unavailable"
    try:
        _redis_client().ping()
    except Exception:
        logger.warning("readiness: redis does not answer", exc_info=True)
        checks["redis"] = "unavailable"
    return checks


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    """PostgreSQL and Redis both answer: this process can serve traffic."""
    checks = readiness()
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )


def in_request_workspace(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Under ASGI, Django renders the response to a resolver 404 (and to other exceptions) with
    `sync_to_async(thread_sensitive=False)`: another thread, whose database connection and URL
    conf are not the request's. An error page that reads the session there would find nothing
    in the public schema and make the session middleware delete the person's cookie."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        workspace = getattr(request, "tenant", None)
        if workspace is not None and (
            connection.schema_name != workspace.schema_name
            or getattr(connection, "server", "default") != getattr(workspace, "database", "default")
        ):
            connection.set_tenant(workspace)
        urlconf = getattr(request, "urlconf", None)
        if urlconf:
            set_urlconf(urlconf)
        return view(request, *args, **kwargs)

    return wrapper


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    """Prometheus metrics for operators, with `Authorization: Bearer $ATRIUM_METRICS_TOKEN`.
    Without a configured token the endpoint does not exist."""
    token = settings.ATRIUM_METRICS_TOKEN
    if not token:
        return not_found(request)
    if not operator_metrics.authorized(request.headers.get("Authorization"), token):
        response = HttpResponse("a bearer token is required\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    body, content_type = operator_metrics.exposition()
    return HttpResponse(body, content_type=content_type)


def wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path.startswith("/.well-known/")


# Exempt: an unknown path answers 404 in the JSON format whatever the method, not a CSRF page.
@csrf_exempt
def api_not_found(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    return JsonResponse(errors.NoSuchEndpoint().as_body(), status=404)


@in_request_workspace
def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A refused cross-site form post: JSON for the APIs, Django's page elsewhere."""
    if wants_json(request):
        error = errors.CsrfFailed()
        return JsonResponse(error.as_body(), status=403)
    from django.views.csrf import csrf_failure as django_csrf_failure

    return django_csrf_failure(request, reason=reason)


@in_request_workspace
def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if wants_json(request):
        return api_not_found(request)
    return render(request, "404.html", status=404)


class UnknownUrlMiddleware:
    """With DEBUG on (`make run`), Django answers a URL no route matches with its debug page, which
    lists every route of the host. Debug pages stay for errors in code (a view's own 404 keeps its
    traceback-free debug page too), but an unknown URL gets the project's 404 page, as in
    production. Placed inside the workspace middleware, whose own answer for an unknown host
    stands, and outside CommonMiddleware, whose missing-slash redirect comes first."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        unmatched = getattr(request, "resolver_match", None) is None
        if settings.DEBUG and response.status_code == 404 and unmatched:
            return not_found(request)
        return response


def dependency_unavailable(request: HttpRequest, outage: errors.ServiceUnavailable) -> HttpResponse:
    """503 while PostgreSQL or Redis cannot be reached: SPEC 7.1's body for the JSON APIs (and any
    client that does not ask for HTML), a static page otherwise. Nothing here touches the
    database: the page is rendered without the request's context processors."""
    if wants_json(request) or "text/html" not in request.headers.get("Accept", ""):
        response: HttpResponse = JsonResponse(outage.as_body(), status=503)
    else:
        response = HttpResponse(render_to_string("503.html"), status=503)
    for name, value in outage.headers.items():
        response[name] = value
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    # Django calls this while the exception is being handled (in the thread that handles it).
    outage = errors.unavailable(sys.exc_info()[1])
    if outage is not None:
        logger.warning("a dependency is unreachable; answering 503 to %s", request.path)
        return dependency_unavailable(request, outage)
    return _server_error(request)


@in_request_workspace
def _server_error(request: HttpRequest) -> HttpResponse:
    if wants_json(request):
        error = errors.InternalError()
        return JsonResponse(error.as_body(), status=500)
    return render(request, "500.html", status=500)
