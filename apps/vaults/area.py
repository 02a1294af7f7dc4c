"""The Credential Vaults area, as the rest of the service knows it (apps.core.areas): secrets kept
encrypted, named to agents by reference, resolved by the service's own tools."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.navigation import NavItem
from apps.vaults.permissions import VaultsPerm

area = areas.declare(
    title=_("Credential Vaults"),
    group=areas.Group.AUTOMATION,
    description=_("Secrets kept encrypted for the workspace's tools, referred to, never shown"),
    words="vault secret credential password api key token",
    hints={
        "vaultList": (
            "vault credentials secrets api keys tokens logins passwords stored kept shared expiring"
        ),
        "vaultLookup": (
            "look up find one vault credential secret api key token password login by name, its reference"
        ),
    },
    profiles={"vaults": ("vaultList", "vaultLookup")},
    nav=[NavItem("vaults", _("Vault"), "vaults:items", VaultsPerm.VIEW, order=60)],
    kinds=[],
    not_kinds={
        "vaults.VaultItem": "a secret, named to its tools by reference (vaultList), not linked or searched",
        "vaults.VaultUse": "a line of an item's log of use",
    },
)
