"""The OpenAPI schema of the workspace's JSON APIs, and two pages that read it."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.permissions import AllowAny

from apps.core.api import schema  # noqa: F401  (registers the security schemes)

public = {"authentication_classes": [], "permission_classes": [AllowAny]}

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(**public), name="api-schema"),
    path("docs/", SpectacularRedocView.as_view(url_name="api-schema", **public), name="api-docs"),
    path("docs/try/", SpectacularSwaggerView.as_view(url_name="api-schema", **public), name="api-docs-try"),
]
