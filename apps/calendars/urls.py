from django.urls import path

from apps.calendars import views

app_name = "calendars"

urlpatterns = [
    path("settings/calendars/", views.calendar_list, name="list"),
    path("settings/calendars/events/<int:event_id>/", views.event_detail, name="event"),
    path("calendars/rsvp/<str:token>", views.rsvp, name="rsvp"),
]
