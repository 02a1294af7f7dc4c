from django.urls import path

from apps.documents import views

app_name = "documents"

urlpatterns = [
    path("settings/documents/", views.document_list, name="list"),
    path("settings/documents/<int:document_id>/", views.document_detail, name="detail"),
    path("settings/documents/<int:document_id>/restore", views.document_restore, name="restore"),
]
