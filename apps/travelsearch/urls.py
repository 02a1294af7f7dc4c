from django.urls import path

from apps.travelsearch import views

app_name = "travelsearch"

urlpatterns = [path("settings/travel-search/", views.travelsearch, name="travelsearch")]
