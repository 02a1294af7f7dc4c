"""Health checks and the error pages every host shares."""

import logging

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from apps.core import errors

logger = logging.getLogger(__name__)
_redis: redis.Redis | None = None


def _redis_client() -> redis.Redis:
    global _redis
    if _redis is None:
        _redis = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=1, socket_timeout=1)
    return _redis


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """The process is alive (no dependency is consulted)."""
    return JsonResponse({"status": "ok"})


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    """PostgreSQL and Redis both answer: this process can serve traffic."""
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
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse(
        {"status": "ok" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )


def wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or request.path.startswith("/.well-known/")


@csrf_exempt
def api_not_found(request: HttpRequest, *args: object, **kwargs: object) -> JsonResponse:
    return JsonResponse(errors.NotFound(_("No such endpoint.")).as_body(), status=404)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A refused cross-site form post: JSON for the APIs, Django's page elsewhere."""
    if wants_json(request):
        error = errors.Forbidden(_("Cross-site request refused (CSRF check failed)."), code="CSRF_FAILED")
        return JsonResponse(error.as_body(), status=403)
    from django.views.csrf import csrf_failure as django_csrf_failure

    return django_csrf_failure(request, reason=reason)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if wants_json(request):
        return api_not_found(request)
    return render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    if wants_json(request):
        error = errors.AppError(_("Internal error; it has been logged."), code="INTERNAL_ERROR")
        return JsonResponse(error.as_body(), status=500)
    return render(request, "500.html", status=500)
