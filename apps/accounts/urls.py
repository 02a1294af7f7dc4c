from django.urls import include, path

from apps.accounts import views

account_patterns = (
    [
        path("sign-in/", views.SignInView.as_view(), name="sign-in"),
        path("sign-out/", views.sign_out, name="sign-out"),
        path("password-reset/", views.password_reset, name="password-reset"),
        path("password-reset/sent/", views.password_reset_sent, name="password-reset-sent"),
        path("password-reset/done/", views.password_reset_done, name="password-reset-done"),
        path(
            "password-reset/<str:uidb64>/<str:token>/",
            views.PasswordResetConfirmView.as_view(),
            name="password-reset-confirm",
        ),
        path("invitation/<str:uidb64>/<str:token>/", views.InvitationView.as_view(), name="invitation"),
        path("sign-in-link/", views.sign_in_link, name="sign-in-link"),
        path("sign-in-link/sent/", views.sign_in_link_sent, name="sign-in-link-sent"),
        path("sign-in-link/<str:uidb64>/<str:token>/", views.sign_in_link_use, name="sign-in-link-use"),
    ],
    "accounts",
)

settings_patterns = (
    [
        path("", views.profile, name="home"),
        path("password/", views.password_change, name="password"),
        path("authenticator/start/", views.otp_start, name="otp-start"),
        path("authenticator/confirm/", views.otp_confirm, name="otp-confirm"),
        path("authenticator/remove/", views.otp_remove, name="otp-remove"),
        path("authenticator/recovery-codes/", views.otp_recovery_codes, name="otp-recovery-codes"),
        path("security/", views.security, name="security"),
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
