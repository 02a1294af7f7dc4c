from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class HrConfig(AppConfig):
    name = "apps.hr"
    label = "hr"
    verbose_name = _("HR")
    default_auto_field = "django.db.models.BigAutoField"
