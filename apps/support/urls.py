from django.urls import path

from apps.support import views

app_name = "support"

urlpatterns = [
    path("settings/support/", views.queue, name="queue"),
    path("settings/support/tickets/<int:ticket_id>/", views.ticket_detail, name="ticket"),
    path("settings/support/mailbox/", views.mailbox_choose, name="mailbox"),
    path("settings/support/tickets/<int:ticket_id>/reply/", views.ticket_reply, name="reply"),
    path("settings/support/tickets/<int:ticket_id>/assign/", views.ticket_assign, name="assign"),
    path("settings/support/tickets/<int:ticket_id>/close/", views.ticket_close, name="close"),
    path("settings/support/policies/", views.policy_list, name="policies"),
    path("settings/support/policies/<slug:priority>/", views.policy_edit, name="policy"),
    path("settings/support/policies/<slug:priority>/remove/", views.policy_remove, name="policy_remove"),
    path("settings/support/replies/", views.canned_list, name="canned_replies"),
    path("settings/support/replies/new/", views.canned_new, name="canned_new"),
    path("settings/support/replies/<int:canned_id>/", views.canned_edit, name="canned_edit"),
    path("settings/support/replies/<int:canned_id>/delete/", views.canned_delete, name="canned_delete"),
]
