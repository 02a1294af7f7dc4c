from django.urls import include, path

from apps.gateway import views

page_patterns = (
    [
        path(
            "api-keys/<int:key_id>/deliveries/<int:delivery_id>/redeliver/",
            views.redeliver,
            name="redeliver",
        ),
        path("api-keys/<int:key_id>/test-event/", views.send_test_event, name="test-event"),
    ],
    "gateway",
)

urlpatterns = [
    path("settings/", include(page_patterns)),
    path("api/", include("apps.gateway.api.urls")),
]
