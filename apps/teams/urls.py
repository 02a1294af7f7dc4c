from django.urls import path

from apps.teams import views

app_name = "teams"

urlpatterns = [
    path("settings/agent-teams/", views.teams, name="teams"),
    path("settings/agent-teams/approvals/<int:message_id>/", views.decide, name="decide"),
]
