from django.urls import path

from apps.core.kinds import views

app_name = "search"

urlpatterns = [
    path("settings/search/", views.search, name="workspace"),
]
