from django.urls import path

from apps.extensions import views

app_name = "extensions"

urlpatterns = [
    path("settings/extensions/", views.projects, name="projects"),
    path("settings/extensions/builds/<int:build_id>/", views.build, name="build"),
    path("settings/extensions/builds/<int:build_id>/publish/", views.publish, name="publish"),
    # A built extension's files, served in its sandboxed frame under the strict policy.
    path("extensions/builds/<int:build_id>/frame/<path:file>", views.frame_file, name="frame"),
]
