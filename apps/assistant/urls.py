from django.urls import path

from apps.assistant import views

app_name = "assistant"

urlpatterns = [
    path("settings/assistant/", views.home, name="home"),
]
