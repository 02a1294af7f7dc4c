"""The API reference pages, served whole from here: no font, script or image from the internet.

- `/api/docs/` is Redoc (drf-spectacular-sidecar's bundle) in a page of ours: drf-spectacular's
  own Redoc page asks Google Fonts for its fonts and starts Redoc from an inline script. Ours
  names no web font (SPECTACULAR_SETTINGS["REDOC_UI_SETTINGS"]) and starts Redoc from
  static/js/api-reference.js.
- Redoc's bundle draws its footer logo from cdn.redoc.ly; `redoc_bundle` serves the sidecar's
  bundle with that address emptied (an image with an empty `src` is never fetched, and Redoc then
  drops it), so opening the page asks nothing of another host.
- `/api/docs/try/` is Swagger UI in drf-spectacular's split form: its starting script is a
  separate request (`?script`), not inline.

Both pages get the site's Content-Security-Policy with the few allowances each needs
(settings.API_REFERENCE_CSP, config/settings/security.py).
"""

import hashlib
import re
from functools import cache
from pathlib import Path
from typing import Any

from csp.decorators import csp_update
from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.urls import reverse
from django.views.decorators.http import require_GET
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.permissions import AllowAny

REDOC_BUNDLE = "drf_spectacular_sidecar/redoc/bundles/redoc.standalone.js"
# Any image address on Redoc's CDN written into the bundle (today its logo in the side menu).
CDN_ADDRESS = re.compile(rb'"https://cdn\.redoc\.ly/[^"]*"')
BUNDLE_MAX_AGE = 24 * 3600


@cache
def bundle() -> tuple[bytes, str]:
    """The sidecar's Redoc bundle with the CDN addresses emptied, and its ETag."""
    found = finders.find(REDOC_BUNDLE)
    if not isinstance(found, str):
        raise FileNotFoundError(REDOC_BUNDLE)
    body = CDN_ADDRESS.sub(b'""', Path(found).read_bytes())
    return body, f'"{hashlib.sha256(body).hexdigest()[:32]}"'


@require_GET
def redoc_bundle(request: HttpRequest) -> HttpResponse:
    body, etag = bundle()
    if request.headers.get("If-None-Match") == etag:
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={BUNDLE_MAX_AGE}"
    return response


class ReferenceView(SpectacularRedocView):
    template_name = "core/api_reference.html"

    def get(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().get(request, *args, **kwargs)
        response.data["redoc_standalone"] = reverse("api-docs-redoc")
        return response


public: dict[str, Any] = {"authentication_classes": [], "permission_classes": [AllowAny]}


def reference_page() -> Any:
    return csp_update(settings.API_REFERENCE_CSP["redoc"])(
        ReferenceView.as_view(url_name="api-schema", **public)
    )


def try_page() -> Any:
    return csp_update(settings.API_REFERENCE_CSP["swagger"])(
        SpectacularSwaggerSplitView.as_view(url_name="api-schema", **public)
    )
