from django.urls import path

from apps.integrations import views

app_name = "integrations"

urlpatterns = [
    path("settings/integrations/", views.integrations, name="integrations"),
    path("settings/integrations/save/", views.save, name="save"),
    path("settings/integrations/test/", views.test, name="test"),
]
