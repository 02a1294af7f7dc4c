from django.apps import AppConfig


class TenancyConfig(AppConfig):
    name = "apps.tenancy"
    verbose_name = "Workspaces"

    def ready(self) -> None:
        from . import signals  # noqa: F401
