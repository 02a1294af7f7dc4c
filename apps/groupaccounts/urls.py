from django.urls import path

from apps.groupaccounts import views

app_name = "groupaccounts"

urlpatterns = [
    path("settings/group-accounts/", views.account_list, name="list"),
]
