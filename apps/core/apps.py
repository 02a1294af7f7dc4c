from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class CoreConfig(AppConfig):
    name = "apps.core"

    def ready(self) -> None:
        # The system checks; the Celery signals that carry request ids into tasks.
        from . import checks, observability  # noqa: F401

        # Every app declares its areas and permissions in a `permissions` module, and the
        # credential schemes it provides in a `credentials` module, and how its personal data is
        # exported and erased in a `privacy` module.
        autodiscover_modules("permissions")
        # Every area app declares itself in an `area` module (apps.core.areas): its permissions,
        # record kinds, pages, periodic tasks and settings.
        autodiscover_modules("area")
        autodiscover_modules("credentials")
        autodiscover_modules("privacy")
        # The kinds of records an area lets people import, in a `transfer` module (apps.core.transfer).
        autodiscover_modules("transfer")
        # Every app declares its failures in an `errors` module: the registry of error codes.
        autodiscover_modules("errors")

        from django.conf import settings
        from django.core.signals import request_finished

        from . import areas
        from .dbbackend.base import close_after_asgi_request

        request_finished.connect(close_after_asgi_request, dispatch_uid="atrium-close-after-asgi-request")

        from django.core.signals import setting_changed

        from .servers import routers_follow_the_servers

        setting_changed.connect(routers_follow_the_servers, dispatch_uid="atrium-routers-follow-the-servers")

        areas.install_schedule(settings.CELERY_BEAT_SCHEDULE)
