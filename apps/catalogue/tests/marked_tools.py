"""Tools with markers, declared for the tests of the dispatcher's rules (test_markers.py) and of
callTool, which must apply the same ones (test_call_tool.py). Registered only within
`temporary_tools(...)`."""

from typing import Annotated

from pydantic import Field

from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Done
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm


@tool(
    "openContactsDesk",
    permission=ContactsPerm.VIEW,
    title="Open the contacts desk",
    read_only=True,
    markers=Marker.MANDATORY_FIRST_CALL,
    register_it=False,
)
def open_desk(ctx) -> Done:
    """Opens the contacts desk; every other contacts tool needs it first in a session."""
    return Done(message="open")


@tool(
    "wipeContact",
    permission=ContactsPerm.EDIT,
    title="Wipe a contact's notes",
    markers=Marker.DESTRUCTIVE,
    register_it=False,
)
def wipe_contact(ctx, *, name: Annotated[str, Field(description="The first name of the contact")]) -> Done:
    """Removes the notes of the contacts with this first name, for the confirmation tests."""
    count = Contact.objects.filter(first_name=name).update(notes="")
    return Done(message=f"wiped {count}")
