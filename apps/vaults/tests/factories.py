"""Vault items for tests, made through the service as a person makes them:
`VaultItemFactory(actor=people["member"], name="Stripe key", value="sk_test_1")`."""

from typing import Any

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows
from apps.vaults import services
from apps.vaults.models import VaultItem, VaultUse


class VaultItemFactory(ServiceFactory):
    class Meta:
        model = VaultItem

    name = numbered(fake.catch_phrase, " ")
    value = numbered(fake.password, "-")
    _service = staticmethod(services.item_create)


def item(actor: Any, visibility: str = "private", **fields: Any) -> VaultItem:
    made = VaultItemFactory(actor=actor, **fields)
    if visibility != "private":
        VaultItem.objects.filter(pk=made.pk).update(visibility=visibility)
        made.refresh_from_db()
    return made


@access_rows("vaults.VaultItem")
def _items(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: item(actor, visibility))
    rows.listed = lambda person: listed(person, "vaultList", {"limit": 100})
    return rows


@access_rows("vaults.VaultUse")
def _uses(people: dict[str, Any]) -> AccessRows:
    member, owner = people["member"], people["owner"]

    def used(actor: Any) -> VaultUse:
        found = item(actor, "workspace")
        services.looked_up(actor=actor, item=found, purpose="test")
        return VaultUse.objects.get(item=found, actor=actor)

    return AccessRows(own={"member": [used(member)], "owner": [used(owner)]})


@factories.privacy_rows("vaults")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private secret, its name, description and user name carrying the marker."""
    secret = item(
        people["owner"],
        name=f"{marker} key",
        description=f"{marker} description",
        username=f"{marker}-user",
        value=f"{marker}-secret",
    )
    rows.add("itemId", record=secret)
