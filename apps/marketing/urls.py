from django.urls import path

from apps.marketing import public, views

app_name = "marketing"

urlpatterns = [
    path("settings/marketing/", views.home, name="home"),
    path("settings/marketing/settings/", views.save_settings, name="settings"),
    path("settings/marketing/consent/", views.consent, name="consent"),
    path("settings/marketing/brand/", views.save_brand, name="brand"),
    path("settings/marketing/campaigns/<int:campaign_id>/", views.campaign_action, name="campaign"),
    # Public, signed (apps.marketing.public): no sign-in.
    path("m/c/<str:token>/", public.click, name="click"),
    path("m/o/<str:token>.gif", public.opened, name="open"),
    path("m/confirm/<str:token>/", public.confirm, name="confirm"),
    path("p/<slug:slug>/", public.landing_page, name="landing"),
]
