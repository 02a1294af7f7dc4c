from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DataRightsConfig(AppConfig):
    name = "apps.datarights"
    verbose_name = _("Data rights")

    def ready(self) -> None:
        from apps.core import personaldata

        from . import checks  # noqa: F401  (registers the deployment checks)
        from .personal_data import InWorkspace

        # Areas examine and erase a person's data through apps.core.personaldata, never this app.
        personaldata.register(InWorkspace())
