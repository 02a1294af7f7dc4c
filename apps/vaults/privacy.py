"""Personal data in the Credential Vaults (docs/privacy.md): a person's items are theirs, exported
as metadata (never the value) and deleted with them, but for the workspace's items, which stay
the workspace's with their owner cleared; the log names who used an item, cleared on erasure."""

from django.db.models import QuerySet

from apps.core import privacy
from apps.vaults.models import VaultItem, VaultUse


def items_erase(rows: QuerySet) -> int:
    kept = rows.filter(visibility="workspace").update(owner=None)
    deleted, _counts = rows.exclude(visibility="workspace").delete()
    return kept + deleted


privacy.register(VaultItem, user="owner", exclude=("value_encrypted",), erase=items_erase)
privacy.register(VaultUse, user="actor", erase={"actor": None})
