from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FilesConfig(AppConfig):
    name = "apps.files"
    label = "files"
    verbose_name = _("Files")

    def ready(self) -> None:
        from apps.contacts import links
        from apps.core import navigation
        from apps.core.navigation import NavItem

        from . import attachments, providers
        from .permissions import FilesPerm

        links.register_link_target(providers.FileTarget())
        attachments.register_builtin_entities()
        navigation.register(NavItem("files", _("Files"), "files:browse", FilesPerm.VIEW, order=30))
