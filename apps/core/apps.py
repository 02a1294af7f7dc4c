from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class CoreConfig(AppConfig):
    name = "apps.core"
    label = "core"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the system checks)

        # Every app declares its areas and permissions in a `permissions` module.
        autodiscover_modules("permissions")
