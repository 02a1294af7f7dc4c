from django.urls import include, path

from apps.notifications import views

page_patterns = (
    [
        path("notifications/", views.notification_list, name="list"),
        path("notifications/mark/", views.notification_mark, name="mark"),
        path("notifications/watchers/<int:watcher_id>/cancel/", views.watcher_cancel, name="cancel-watcher"),
    ],
    "notifications",
)

urlpatterns = [path("settings/", include(page_patterns))]
