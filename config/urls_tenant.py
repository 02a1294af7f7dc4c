"""URLs of a workspace host: the doors and settings pages listed here, then every area's pages
(each area's declaration names its URLs: apps.core.areas)."""

from django.urls import include, path, re_path

from apps.core import areas
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
    path("", include("apps.core.kinds.urls")),
    path("", include("apps.social.urls")),
    path("", include("apps.integrations.urls")),
    *areas.urlpatterns(),
    # Anything else under /api/ answers in the JSON error format, never an HTML page.
    re_path(r"^api/", core_views.api_not_found),
]

handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"
