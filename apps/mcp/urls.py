from django.urls import path

from apps.mcp import secure_pages, views

app_name = "mcp"

urlpatterns = [
    path(".well-known/mcp.json", views.server_card, name="server-card"),
    path(".well-known/mcp/server-card.json", views.server_card, name="server-card-alias"),
    path("settings/developers/", views.developers, name="developers"),
    path("settings/secure-input/<str:token>/", secure_pages.secure_input_page, name="secure-input"),
]
