from django.urls import path

from apps.accounts.api import views

urlpatterns = [
    path("me", views.MeView.as_view(), name="api-me"),
]
