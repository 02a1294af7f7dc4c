from django.urls import path

from apps.catalogue import views

app_name = "catalogue"

urlpatterns = [
    path("settings/tool-calls/", views.tool_calls, name="tool-calls"),
]
