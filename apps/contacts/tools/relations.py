"""How contacts relate: an organisation's key contacts."""

from typing import Annotated

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import EntityId, In, Out
from apps.contacts import services
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import ContactRef, KeyContactOut


class KeyContactIn(In):
    contact_id: EntityId = Field(description="A person contact")
    role: Annotated[str, Field(max_length=100)] = Field("", description="e.g. decision maker")


class KeyContactsOut(Out):
    organisation: ContactRef
    key_contacts: list[KeyContactOut]


@tool(
    "updateKeyContacts",
    permission=ContactsPerm.EDIT,
    title="Set an organisation's key contacts",
    idempotent=True,
)
def update_key_contacts(
    ctx: ToolContext,
    *,
    contact_id: Annotated[int, Field(ge=1, description="The organisation contact")],
    key_contacts: Annotated[
        list[KeyContactIn],
        Field(max_length=25, description="The whole list, most important first; [] clears it"),
    ],
) -> KeyContactsOut:
    """Set an organisation's key people, in order, with their roles; the list replaces the old one."""
    organisation = Contact.objects.fetch(ctx.actor, contact_id)
    services.key_contacts_set(
        actor=ctx.actor,
        organisation=organisation,
        entries=[(key.contact_id, key.role) for key in key_contacts],
    )
    keys = organisation.key_contacts.select_related("person")
    return KeyContactsOut(
        organisation=ContactRef.of_record(organisation),
        key_contacts=[KeyContactOut.of_record(k) for k in keys],
    )
