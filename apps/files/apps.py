from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FilesConfig(AppConfig):
    name = "apps.files"
    label = "files"
    verbose_name = _("Files")

    def ready(self) -> None:
        from apps.contacts import links
        from apps.core import entities, navigation
        from apps.core.navigation import NavItem

        from . import attachments, providers, selectors
        from .permissions import FilesPerm

        links.register_link_target(providers.FileTarget())
        # Watchers, notifications and task steps point at files (apps.core.entities).
        entities.register(
            entities.EntityKind(
                key="file",
                area="files",
                model="files.File",
                get=lambda *, actor, entity_id: selectors.file_get(actor=actor, file_id=entity_id),
                title=lambda file: file.name,
            )
        )
        attachments.register_builtin_entities()
        navigation.register(NavItem("files", _("Files"), "files:browse", FilesPerm.VIEW, order=30))
