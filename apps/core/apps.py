from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"

    def ready(self) -> None:
        # The system checks; the Celery signals that carry request ids into tasks.
        from . import checks, observability  # noqa: F401

        # Every app declares its areas and permissions in a `permissions` module, and the
        # credential schemes it provides in a `credentials` module, and how its personal data is
        # exported and erased in a `privacy` module.
        autodiscover_modules("permissions")
        autodiscover_modules("credentials")
        autodiscover_modules("privacy")
