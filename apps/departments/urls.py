from django.urls import path

from apps.departments import views

app_name = "departments"

urlpatterns = [
    path("settings/departments/", views.department_list, name="list"),
    path("settings/departments/<int:department_id>/restore/", views.department_restore, name="restore"),
]
