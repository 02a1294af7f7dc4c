from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DataRightsConfig(AppConfig):
    name = "apps.datarights"
    verbose_name = _("Data rights")

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the deployment checks)
