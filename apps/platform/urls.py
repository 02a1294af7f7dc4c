from django.urls import path

from apps.platform import views

app_name = "platform"

urlpatterns = [
    path("settings/integrations/callback/", views.integration_callback, name="integration-callback"),
]
