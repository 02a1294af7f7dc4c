"""The Contacts area of the catalogue (SPEC 4.7): thin doors onto services and selectors.

One module per subject. The catalogue autodiscovers `apps.contacts.tools`; importing the modules
here is what registers their tools."""

from apps.contacts.tools import (  # noqa: F401  (registers them)
    conflicts,
    contacts,
    examine,
    health,
    lifecycle,
    linked,
    relations,
    search,
)
