"""URLs of the public site: the operators' admin and the health checks."""

from django.urls import include, path, re_path
from django.views.generic import RedirectView

from apps.core import views as core_views
from apps.core.admin import public_admin_site

urlpatterns = [
    path("", RedirectView.as_view(url="/admin/", permanent=False)),
    path("", include("apps.core.urls")),
    path("admin/", public_admin_site().urls),
    re_path(r"^api/", core_views.api_not_found),
]

handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"
