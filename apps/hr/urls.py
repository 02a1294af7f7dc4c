from django.urls import path

from apps.hr import views

app_name = "hr"

urlpatterns = [
    path("settings/hr/", views.home, name="home"),
]
