"""Vault items written (`item_create`, `item_update`, `item_delete`), looked up and resolved; each
look-up and use logged (`VaultUse`). The value is encrypted as it arrives and decrypted only by
`resolve`, for a part of the service that sends it where it is configured to go."""

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import Role
from apps.core import clean, encryption, origin
from apps.core.actors import Actor
from apps.core.errors import invalid
from apps.core.records import create, update
from apps.vaults import errors
from apps.vaults.models import VaultItem, VaultUse
from apps.vaults.permissions import VaultsPerm

MAX_VALUE = 10_000
MAX_HOSTS = 20
FIELDS = (
    "name",
    "kind",
    "description",
    "username",
    "value",
    "allowed_hosts",
    "visibility",
    "shared_roles",
    "expires_at",
)


def hosts(value: Any) -> list[str]:
    """Allowed hosts from a list or a text of them (commas, spaces or lines between)."""
    given = value.replace(",", " ").split() if isinstance(value, str) else list(value or [])
    cleaned: list[str] = []
    for host in given:
        host = str(host).strip().lower().rstrip(".")
        if not host or len(host) > 253 or any(char in host for char in "/:@?#"):
            raise invalid("allowedHosts", _("{host!r} is not a host name (example.com)"), host=str(host)[:80])
        if host not in cleaned:
            cleaned.append(host)
    if len(cleaned) > MAX_HOSTS:
        raise invalid("allowedHosts", _("at most {limit} hosts"), limit=MAX_HOSTS)
    return cleaned


def _name(item: VaultItem, value: Any) -> str:
    """Required, one live item of a name per owner (case aside): names are each owner's own, so
    choosing one tells nobody what another person keeps."""
    name = clean.text(value, field="name", limit=120, required=True)
    taken = VaultItem.objects.live().filter(owner_id=item.owner_id, name__iexact=name).exclude(pk=item.pk)
    if item.owner_id is not None and taken.exists():
        raise invalid("name", _("you already keep a vault item called {name!r}"), name=name)
    return name


def _apply(actor: Actor, item: VaultItem, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        item.name = _name(item, fields.get("name"))
    if "kind" in fields:
        if fields["kind"] not in VaultItem.Kind.values:
            raise invalid("kind", _("must be one of {choices}"), choices=", ".join(VaultItem.Kind.values))
        item.kind = fields["kind"]
    if "description" in fields:
        item.description = clean.text(fields["description"], field="description", limit=500)
    if "username" in fields:
        item.username = clean.text(fields["username"], field="username", limit=200)
    if "allowed_hosts" in fields:
        item.allowed_hosts = hosts(fields["allowed_hosts"])
    if "visibility" in fields:
        if fields["visibility"] not in ("private", "workspace"):
            raise invalid("visibility", _("must be one of {choices}"), choices="private, workspace")
        if fields["visibility"] == "workspace" and not VaultItem.access.may_share(actor):
            raise invalid("visibility", _("only the vault's administrators keep the workspace's items"))
        item.visibility = fields["visibility"]
    if "expires_at" in fields:
        expires = fields["expires_at"]
        if expires is not None and not isinstance(expires, datetime):
            raise invalid("expiresAt", _("must be a date and time"))
        item.expires_at = expires
    value = fields.get("value") or ""
    if creating and not value:
        raise invalid("value", _("the secret is required"))
    if value:
        if len(value) > MAX_VALUE:
            raise invalid("value", _("at most {limit} characters"), limit=MAX_VALUE)
        item.value_encrypted = encryption.encrypt(value)
        item.value_changed_at = timezone.now()


def _roles(item: VaultItem, fields: dict[str, Any]) -> None:
    if "shared_roles" in fields:
        item.shared_roles.set(list(fields["shared_roles"] or []))


@transaction.atomic
def item_create(*, actor: Actor, fields: dict[str, Any]) -> VaultItem:
    made = create(
        VaultItem,
        actor=actor,
        permission=VaultsPerm.EDIT,
        fields=fields,
        apply=_apply,
        owner=actor,
        visibility="private",
    )
    _roles(made, fields)
    return made


@transaction.atomic
def item_update(*, actor: Actor, item: VaultItem, fields: dict[str, Any]) -> list[str]:
    # The workspace's items: the vault's administrators' alone (`workspace_kept_by`).
    VaultItem.objects.fetch(actor, item.pk, "change")
    names = [name for name in FIELDS if name in fields and name not in ("value", "shared_roles")]
    changed = update(item, actor=actor, permission=VaultsPerm.EDIT, fields=fields, apply=_apply, names=names)
    if fields.get("value"):
        item.save(update_fields=["value_encrypted", "value_changed_at", "updated_at"])
        _log(item, actor, VaultUse.Action.CHANGED, "new value")
        changed.append("value")
    if "shared_roles" in fields:
        before = set(item.shared_roles.values_list("pk", flat=True))
        _roles(item, fields)
        if before != {role.pk for role in fields["shared_roles"] or []}:
            changed.append("shared_roles")
    return changed


def item_delete(*, actor: Actor, item: VaultItem) -> None:
    VaultItem.objects.fetch(actor, item.pk, "delete")
    item.trash(actor)


def roles_named(keys: list[str]) -> list[Role]:
    """The roles of `keys`, each one that exists (an unknown key is refused)."""
    found = {role.key: role for role in Role.objects.filter(key__in=keys)}
    for key in keys:
        if key not in found:
            raise invalid("sharedRoles", _("no role {key!r}"), key=key[:80])
    return [found[key] for key in keys]


def _log(item: VaultItem, actor: Actor | None, action: str, purpose: str) -> None:
    came = origin.current()
    VaultUse.objects.create(
        item=item,
        actor_id=getattr(actor, "pk", None),
        action=action,
        purpose=purpose[:200],
        door=came.door if came else "",
        tool=came.tool if came else "",
    )


def looked_up(*, actor: Actor, item: VaultItem, purpose: str) -> None:
    _log(item, actor, VaultUse.Action.LOOKUP, purpose or "vaultLookup")


def item_of(reference: str) -> int:
    prefix = "vault:item/"
    rest = reference.strip()[len(prefix) :] if reference.strip().startswith(prefix) else ""
    if not rest.isdigit() or int(rest) < 1:
        raise errors.VaultReferenceInvalid(reference=reference[:80])
    return int(rest)


def resolve(item: VaultItem, *, actor: Actor | None, purpose: str, host: str = "") -> str:
    """The item's value, for a part of the service that sends it to `host` (checked against the
    item's allowed hosts) and never shows it: the use logged, its time kept."""
    if item.expires_at is not None and item.expires_at <= timezone.now():
        raise errors.VaultItemExpired(id=item.pk, name=item.name, expired=item.expires_at.date().isoformat())
    if host and item.allowed_hosts and host.lower() not in item.allowed_hosts:
        raise errors.VaultItemNotForThis(
            id=item.pk, name=item.name, allowed=", ".join(item.allowed_hosts), host=host
        )
    try:
        value = encryption.decrypt(item.value_encrypted)
    except encryption.DecryptionFailed:
        raise errors.VaultUnreadable(id=item.pk) from None
    _log(item, actor, VaultUse.Action.USED, purpose)
    VaultItem.objects.filter(pk=item.pk).update(last_used_at=timezone.now())
    return value
