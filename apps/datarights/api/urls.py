from django.urls import path

from apps.datarights.api import views

urlpatterns = [
    path("data-request", views.DataRequestView.as_view(), name="api-data-request"),
]
