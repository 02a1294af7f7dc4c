from django.urls import path

from apps.vaults import views

app_name = "vaults"

urlpatterns = [
    path("settings/vault/", views.items, name="items"),
    path("settings/vault/add/", views.add, name="add"),
    path("settings/vault/<int:item_id>/", views.edit, name="edit"),
    path("settings/vault/<int:item_id>/delete/", views.delete, name="delete"),
]
