from django.urls import path

from apps.contacts import views

app_name = "contacts"

urlpatterns = [
    path("settings/contacts/", views.contact_list, name="list"),
    path("settings/contacts/<int:contact_id>/", views.contact_detail, name="detail"),
]
