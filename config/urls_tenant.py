"""URLs of a workspace host."""

from django.urls import include, path, re_path

from apps.core import views as core_views

urlpatterns = [
    path("", include("apps.core.urls")),
    path("", include("apps.accounts.urls")),
    path("", include("apps.mcp.urls")),
    path("", include("apps.oauth.urls")),
    path("api/", include("apps.accounts.api.urls")),
    path("api/", include("apps.datarights.api.urls")),
    path("", include("apps.catalogue.urls")),
    path("api/", include("apps.core.api.urls")),
    path("", include("apps.apikeys.urls")),
    path("", include("apps.gateway.urls")),
    path("", include("apps.notifications.urls")),
    path("", include("apps.tasks.urls")),
    path("", include("apps.files.urls")),
    path("", include("apps.documents.urls")),
    path("", include("apps.calendars.urls")),
    path("", include("apps.departments.urls")),
    path("", include("apps.groupaccounts.urls")),
    # Anything else under /api/ answers in the JSON error format, never an HTML page.
    re_path(r"^api/", core_views.api_not_found),
]

handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"
