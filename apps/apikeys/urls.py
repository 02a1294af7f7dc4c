from django.urls import include, path

from apps.apikeys import views

page_patterns = (
    [
        path("api-keys/", views.key_list, name="list"),
        path("api-keys/<int:key_id>/", views.key_detail, name="detail"),
        path("api-keys/<int:key_id>/rename/", views.key_rename, name="rename"),
        path("api-keys/<int:key_id>/roll/", views.key_roll, name="roll"),
        path("api-keys/<int:key_id>/revoke/", views.key_revoke, name="revoke"),
        path("agent-connection/", views.agent_connection, name="agent-connection"),
    ],
    "apikeys",
)

urlpatterns = [
    path("settings/", include(page_patterns)),
    path("api/", include("apps.apikeys.api.urls")),
]
