from django.urls import path

from apps.mcpgateway import views

app_name = "mcpgateway"

urlpatterns = [
    path("settings/mcp-servers/", views.servers, name="servers"),
    path("settings/mcp-servers/add/", views.add, name="add"),
    path("settings/mcp-servers/<int:server_id>/", views.edit, name="edit"),
    path("settings/mcp-servers/<int:server_id>/delete/", views.delete, name="delete"),
]
