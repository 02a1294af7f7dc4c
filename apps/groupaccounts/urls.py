from django.urls import path

from apps.groupaccounts import views

app_name = "groupaccounts"

urlpatterns = [
    path("settings/group-accounts/", views.account_list, name="list"),
    path("settings/group-accounts/<int:account_id>/restore/", views.account_restore, name="restore"),
]
