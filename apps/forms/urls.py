from django.urls import path

from apps.forms import public, views

app_name = "forms"

urlpatterns = [
    path("settings/forms/", views.home, name="home"),
    path("settings/forms/<int:form_id>/submissions.csv", views.export, name="export"),
    # The public page of a published form (apps.forms.public): no sign-in.
    path("f/<slug:slug>/", public.page, name="public"),
]
