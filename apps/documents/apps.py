from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DocumentsConfig(AppConfig):
    name = "apps.documents"
    label = "documents"
    verbose_name = _("Documents")

    def ready(self) -> None:
        from apps.contacts import links
        from apps.core import navigation
        from apps.core.navigation import NavItem

        from . import providers
        from .permissions import DocumentsPerm

        links.register_link_target(providers.DocumentTarget())
        providers.register_entity()
        navigation.register(
            NavItem("documents", _("Documents"), "documents:list", DocumentsPerm.VIEW, order=32)
        )
