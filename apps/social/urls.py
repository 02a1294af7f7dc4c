from django.urls import path

from apps.social import views

app_name = "social"

urlpatterns = [
    path("settings/social/", views.accounts, name="accounts"),
    path("settings/social/<int:account_id>/disconnect/", views.disconnect, name="disconnect"),
]
