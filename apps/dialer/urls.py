from django.urls import path

from apps.dialer import views

app_name = "dialer"

urlpatterns = [
    path("settings/dialer/", views.dialer, name="dialer"),
    # Public, for the telephony provider: each request checked by its X-Twilio-Signature.
    path("dialer/callbacks/voice", views.voice, name="voice"),
    path("dialer/callbacks/status", views.status, name="status"),
    path("dialer/callbacks/sms", views.sms, name="sms"),
]
