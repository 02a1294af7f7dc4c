from django.urls import path

from apps.travel import views

app_name = "travel"

urlpatterns = [
    path("settings/travel/", views.travel, name="travel"),
    path("settings/travel/bookings/<int:booking_id>/pay/", views.pay, name="pay"),
]
