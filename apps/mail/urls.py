from django.urls import include, path

from apps.mail import esp, views

app_name = "mail"

urlpatterns = [
    path("settings/mail/", views.mail_settings, name="settings"),
    path("settings/mail/connect", views.mailbox_connect, name="connect"),
    path("settings/mail/<int:mailbox_id>/", views.mailbox_detail, name="mailbox"),
    path("settings/mail/<int:mailbox_id>/sync", views.mailbox_sync, name="sync"),
    path("settings/mail/<int:mailbox_id>/password", views.mailbox_password, name="password"),
    path("settings/mail/drafts/<int:draft_id>/restore", views.draft_restore, name="restore-draft"),
    # Public: the one-click unsubscribe link of campaign and marketing mail (RFC 8058).
    path("mail/unsubscribe/<str:token>", views.unsubscribe, name="unsubscribe"),
    # Public, signed: an ESP's tracking webhook (bounces, complaints), when one is set up.
    path("mail/esp/", include((esp.urlpatterns(), "anymail"))),
]
