from django.urls import include, path

from apps.accounts import views

account_patterns = (
    [
        path("sign-in/", views.SignInView.as_view(), name="sign-in"),
        path("sign-out/", views.sign_out, name="sign-out"),
    ],
    "accounts",
)

settings_patterns = (
    [
        path("", views.profile, name="home"),
        path("tokens/", views.tokens, name="tokens"),
        path("tokens/<int:token_id>/revoke/", views.token_revoke, name="token-revoke"),
        path("people/", views.people, name="people"),
        path("people/<int:user_id>/", views.person_update, name="person"),
        path("roles/", views.roles, name="roles"),
        path("roles/<int:role_id>/", views.role_edit, name="role"),
    ],
    "settings",
)

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/", include(account_patterns)),
    path("settings/", include(settings_patterns)),
]
