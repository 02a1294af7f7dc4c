from django.urls import path

from apps.apikeys.api import schema, views  # noqa: F401  (schema registers the token-plus-key scheme)

urlpatterns = [
    path("api-keys", views.ApiKeyListView.as_view(), name="api-keys"),
    path("api-keys/<int:key_id>", views.ApiKeyDetailView.as_view(), name="api-key"),
    path(
        "api-keys/<int:key_id>/roll-signing-secret",
        views.RollSigningSecretView.as_view(),
        name="api-key-roll",
    ),
    path("mcp/quick-setup", views.QuickSetupView.as_view(), name="mcp-quick-setup"),
]
