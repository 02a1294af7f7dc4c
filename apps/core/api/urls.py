"""The OpenAPI schema of the workspace's JSON APIs, and two pages that read it (apps.core.api.reference)."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.permissions import AllowAny

from apps.core.api import (
    reference,
    schema,  # noqa: F401  (registers the security schemes)
)

public = {"authentication_classes": [], "permission_classes": [AllowAny]}

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(**public), name="api-schema"),
    path("docs/", reference.reference_page(), name="api-docs"),
    path("docs/redoc.standalone.js", reference.redoc_bundle, name="api-docs-redoc"),
    path("docs/try/", reference.try_page(), name="api-docs-try"),
]
