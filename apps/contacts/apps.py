from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ContactsConfig(AppConfig):
    name = "apps.contacts"
    label = "contacts"
    verbose_name = _("Contacts")

    def ready(self) -> None:
        from apps.contacts import selectors
        from apps.core import entities

        # Other areas point at contacts (watchers, task steps, attached files).
        entities.register(
            entities.EntityKind(
                key="contact",
                area="contacts",
                model="contacts.Contact",
                get=lambda *, actor, entity_id: selectors.contact_get(
                    actor=actor, contact_id=entity_id, include_deleted=True
                ),
                title=lambda contact: contact.display_name,
                person_email="email",
            )
        )
