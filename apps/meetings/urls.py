from django.urls import path

from apps.meetings import views

app_name = "meetings"

urlpatterns = [path("settings/meetings/", views.meetings, name="meetings")]
