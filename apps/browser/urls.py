from django.urls import path

from apps.browser import views

app_name = "browser"

urlpatterns = [
    path("settings/browser/", views.sessions, name="sessions"),
    path("settings/browser/<int:session_id>/end/", views.end, name="end"),
]
