from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DocumentsConfig(AppConfig):
    name = "apps.documents"
    label = "documents"
    verbose_name = _("Documents")

    def ready(self) -> None:
        from apps.contacts import links
        from apps.core import entities, navigation
        from apps.core.navigation import NavItem

        from . import providers, selectors
        from .permissions import DocumentsPerm

        links.register_link_target(providers.DocumentTarget())
        # Watchers, notifications and task steps point at documents (apps.core.entities).
        entities.register(
            entities.EntityKind(
                key="document",
                area="documents",
                model="documents.Document",
                get=lambda *, actor, entity_id: selectors.document_get(actor=actor, document_id=entity_id),
                title=lambda document: document.title,
            )
        )
        providers.register_entity()
        navigation.register(
            NavItem("documents", _("Documents"), "documents:list", DocumentsPerm.VIEW, order=32)
        )
