from django.urls import path

from apps.listeners import views

app_name = "listeners"

urlpatterns = [
    path("settings/automations/", views.automations, name="automations"),
    path("settings/automations/<int:listener_id>/pause/", views.pause, name="pause"),
    path("settings/automations/<int:listener_id>/resume/", views.resume, name="resume"),
    path("settings/automations/runs/<int:run_id>/retry/", views.retry, name="retry"),
    # Inbound webhooks (apps.listeners.views.webhook): no sign-in, HMAC-signed.
    path("hooks/listeners/<str:token>/", views.webhook, name="webhook"),
]
