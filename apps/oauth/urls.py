"""URLs of the authorization server (at the workspace root: the well-known documents must be
there) and of the "Connected apps" settings page.

The toolkit's views reverse each other by name in the `oauth2_provider` namespace (metadata
lists the endpoints, registration answers with its management URL), so Atrium's paths are
declared under those names.
"""

from django.urls import include, path

from apps.oauth import views

provider_patterns = (
    [
        path(
            ".well-known/oauth-authorization-server",
            views.AuthorizationServerMetadataView.as_view(),
            name="oauth-server-metadata",
        ),
        path(
            ".well-known/oauth-protected-resource",
            views.ProtectedResourceMetadataView.as_view(),
            name="oauth-resource-metadata",
        ),
        path(
            ".well-known/oauth-protected-resource/<path:resource_path>",
            views.ProtectedResourceMetadataView.as_view(),
            name="oauth-resource-metadata-path",
        ),
        path("oauth/authorize", views.AuthorizationView.as_view(), name="authorize"),
        path("oauth/token", views.TokenView.as_view(), name="token"),
        path("oauth/revoke", views.RevokeTokenView.as_view(), name="revoke-token"),
        path("oauth/register", views.RegistrationView.as_view(), name="dcr-register"),
        path(
            "oauth/register/<str:client_id>",
            views.RegistrationManagementView.as_view(),
            name="dcr-register-management",
        ),
    ],
    "oauth2_provider",
)

page_patterns = (
    [
        path("", views.connected_apps, name="connected-apps"),
        path("<int:connection_id>/disconnect/", views.connection_revoke, name="connection-revoke"),
    ],
    "oauth",
)

urlpatterns = [
    path("", include(provider_patterns)),
    path("settings/connected-apps/", include(page_patterns)),
]
