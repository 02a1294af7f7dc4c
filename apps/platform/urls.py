"""The Platform area's pages (apps.platform.views): the client portal's, the only pages of a portal
person, and where an outside service sends a person back after they allowed a connection."""

from django.urls import path

from apps.platform import views

app_name = "platform"

urlpatterns = [
    path("portal/", views.home, name="portal-home"),
    path("portal/ask/", views.ask_for_access, name="portal-ask"),
    path("portal/ask/sent/", views.asked, name="portal-asked"),
    path("portal/documents/<int:document_id>/", views.document, name="portal-document"),
    path("portal/files/<int:file_id>/", views.file, name="portal-file"),
    path("settings/integrations/callback/", views.integration_callback, name="integration-callback"),
]
