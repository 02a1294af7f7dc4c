"""The client portal's pages (apps.platform.views): the only pages of a portal person."""

from django.urls import path

from apps.platform import views

app_name = "portal"

urlpatterns = [
    path("portal/", views.home, name="home"),
    path("portal/documents/<int:document_id>/", views.document, name="document"),
    path("portal/files/<int:file_id>/", views.file, name="file"),
]
