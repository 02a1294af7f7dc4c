"""What other areas use of the Credential Vaults: the items a person may refer a tool to, an item
by its reference, and its value resolved server side for a configured destination (each use
logged). A value never goes back to a person or a model through these."""

from django.db.models import QuerySet

from apps.core.actors import Actor
from apps.vaults.errors import VaultItemExpired, VaultItemNotForThis, VaultReferenceInvalid, VaultUnreadable
from apps.vaults.models import VaultItem
from apps.vaults.services import item_of, resolve

__all__ = [
    "VaultItem",
    "VaultItemExpired",
    "VaultItemNotForThis",
    "VaultReferenceInvalid",
    "VaultUnreadable",
    "by_reference",
    "items_for",
    "resolve",
]


def items_for(actor: Actor) -> QuerySet[VaultItem]:
    """The live items `actor` sees (their metadata: never their values)."""
    return VaultItem.objects.restrict(actor, "view").order_by("name", "id")


def by_reference(actor: Actor, reference: str) -> VaultItem:
    """The item a reference (`vault:item/<id>`) names, as `actor` may see it (or not found)."""
    return VaultItem.objects.fetch(actor, item_of(reference), "view")
