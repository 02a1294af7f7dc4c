"""The Credential Vaults' failures (apps.core.errors)."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, Forbidden


class VaultReferenceInvalid(AppError):
    code = "VAULT_REFERENCE_INVALID"
    http_status = 400
    msg_format = _(
        "{reference!r} is not a vault reference: references look like vault:item/<id>, as vaultLookup "
        "answers them."
    )


class VaultItemExpired(Conflict):
    code = "VAULT_ITEM_EXPIRED"
    msg_format = _(
        "Vault item {id} ({name!r}) expired on {expired}; its owner puts a new value in it on the Vault "
        "page before it is used again."
    )


class VaultItemNotForThis(Conflict):
    code = "VAULT_ITEM_NOT_FOR_THIS"
    msg_format = _(
        "Vault item {id} ({name!r}) is kept for {allowed}, not for {host}; its owner adds the host to the "
        "item's allowed hosts on the Vault page."
    )


class VaultUnreadable(AppError):
    code = "VAULT_UNREADABLE"
    http_status = 503
    msg_format = _(
        "Vault item {id} cannot be decrypted with the service's keys; an administrator checks "
        "ATRIUM_ENCRYPTION_KEYS (the key it was written with must stay in the list)."
    )


class VaultItemNotFound(AppError):
    code = "VAULT_ITEM_NOT_FOUND"
    http_status = 404
    message = _("No vault item of that name that you may see. Find the names with vaultList.")


class WorkspaceItemKept(Forbidden):
    code = "VAULT_WORKSPACE_ITEM"
    msg_format = _("Vault item {id} is the workspace's: only the vault's administrators change or delete it.")


class VaultItemAmbiguous(Conflict):
    code = "VAULT_ITEM_AMBIGUOUS"
    msg_format = _(
        "Several vault items you may see are called {name!r}, none of them yours; give the itemId "
        "from vaultList."
    )
