from django.urls import path

from apps.gateway.api import views

urlpatterns = [
    path("agent", views.AgentView.as_view(), name="agent"),
    path("agent/<str:conversation_uuid>", views.ConversationView.as_view(), name="agent-conversation"),
    path("agent/<str:conversation_uuid>/cancel", views.CancelView.as_view(), name="agent-cancel"),
]
