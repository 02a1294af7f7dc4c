from django.urls import path

from apps.events import views

app_name = "events"

urlpatterns = [
    path("settings/events/", views.event_list, name="list"),
    path("settings/events/<int:event_id>/", views.event_detail, name="detail"),
    path("settings/events/<int:event_id>/restore/", views.event_restore, name="restore"),
]
