from django.urls import path

from apps.support import views

app_name = "support"

urlpatterns = [
    path("settings/support/", views.queue, name="queue"),
    path("settings/support/tickets/<int:ticket_id>/", views.ticket_detail, name="ticket"),
    path("settings/support/mailbox/", views.mailbox_choose, name="mailbox"),
]
