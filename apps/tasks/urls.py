from django.urls import include, path

from apps.tasks import views

page_patterns = (
    [
        path("tasks/", views.task_list, name="list"),
        path("tasks/<int:task_id>/", views.task_board, name="board"),
    ],
    "tasks",
)

urlpatterns = [path("settings/", include(page_patterns))]
