from django.urls import path

from apps.web import views

app_name = "web"

urlpatterns = [path("settings/web/", views.calls, name="calls")]
