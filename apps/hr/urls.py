from django.urls import path

from apps.hr import views

app_name = "hr"

urlpatterns = [
    path("settings/hr/", views.home, name="home"),
    path("settings/hr/employees/<int:employee_id>/", views.employee_detail, name="employee"),
    path("settings/hr/leave/<int:request_id>/decide/", views.leave_decide, name="leave-decide"),
    path("settings/hr/hiring/", views.hiring, name="hiring"),
    path("settings/hr/hiring/candidates/<int:candidate_id>/", views.candidate, name="candidate"),
]
