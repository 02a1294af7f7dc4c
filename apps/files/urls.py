from django.urls import path

from apps.files import views

app_name = "files"

urlpatterns = [
    path("files/download/<str:token>", views.download, name="download"),
    path("settings/files/", views.browse, name="browse"),
    path("settings/files/<int:file_id>/download", views.download_signed_in, name="download-signed-in"),
]
