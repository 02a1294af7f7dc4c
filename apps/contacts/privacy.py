"""Personal data of contacts (docs/privacy.md).

A contact is a person the workspace deals with, found by e-mail address; everything about that
contact goes with it (its history, shares, links, key-contact roles, possible duplicates, credit
checks). A workspace user's own actions on other contacts (owner, created by, actor) are the
workspace's records: those links are set to null when the user is erased.
"""

from django.db.models import Q, QuerySet

from apps.contacts.models import (
    Contact,
    ContactConflict,
    ContactEvent,
    ContactLink,
    ContactShare,
    CreditCheck,
    KeyContact,
    OwnershipChange,
)
from apps.core import privacy


def conflicts_of(subject: privacy.Subject) -> QuerySet:
    return ContactConflict.objects.filter(
        Q(contact__email__iexact=subject.email) | Q(other__email__iexact=subject.email)
    )


# The contact last (order 50): the rows about it are counted before its deletion takes them along.
privacy.register(Contact, email="email", soft_delete="deleted_at", order=50)
privacy.register(ContactConflict, find=conflicts_of)
privacy.register(ContactEvent, email="contact__email")
privacy.register(ContactLink, email="contact__email")
privacy.register(ContactShare, email="item__email", user="user")
privacy.register(CreditCheck, email="contact__email")
privacy.register(KeyContact, email="person__email")
privacy.register(OwnershipChange, email="contact__email")
