from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the system checks)

        # Every app declares its areas and permissions in a `permissions` module, and the
        # credential schemes it provides in a `credentials` module, and how its personal data is
        # exported and erased in a `privacy` module.
        autodiscover_modules("permissions")
        autodiscover_modules("credentials")
        autodiscover_modules("privacy")
