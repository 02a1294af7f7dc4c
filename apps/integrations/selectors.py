"""Settings → Integrations as one person sees it: each provider area, which provider is set up,
each setting's source and (for a secret, at most its last four characters) value."""

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core import encryption
from apps.core.actors import Actor, can
from apps.integrations import api
from apps.integrations.models import ProviderSetting


@dataclass(frozen=True)
class FieldRow:
    field: api.Field
    # "workspace" (saved here), "server" (the server's environment) or "" (not set at all).
    source: str
    shown: str


@dataclass(frozen=True)
class ProviderRow:
    provider: api.Provider
    fields: list[FieldRow]


@dataclass(frozen=True)
class AreaRow:
    integration: api.Integration
    configured: str
    choice: FieldRow | None
    providers: list[ProviderRow]
    # The area's own page of recent calls and results, for who may open it ("" otherwise).
    activity_url: str


def _shown(field: api.Field, value: Any, last4: str | None) -> str:
    if not value:
        return ""
    if not field.secret:
        return str(value)
    tail = last4 if last4 is not None else (str(value)[-4:] if len(str(value)) >= 12 else "")
    return _("set, ending …%(tail)s") % {"tail": tail} if tail else _("set")


def _row(field: api.Field, saved: dict[str, ProviderSetting]) -> FieldRow:
    own = saved.get(field.setting)
    if own is not None:
        try:
            value = encryption.decrypt(own.sealed)
        except encryption.DecryptionFailed:
            return FieldRow(field, "workspace", _("saved, but unreadable with this server's keys"))
        return FieldRow(field, "workspace", _shown(field, value, own.last4))
    value = getattr(settings, field.setting, "")
    return FieldRow(field, "server" if value else "", _shown(field, value, None))


def overview(actor: Actor) -> list[AreaRow]:
    saved = {row.name: row for row in ProviderSetting.objects.all()}
    rows = []
    for integration in api.integrations():
        rows.append(
            AreaRow(
                integration=integration,
                configured=integration.configured(),
                choice=_row(integration.choice, saved) if integration.choice else None,
                providers=[
                    ProviderRow(provider, [_row(field, saved) for field in provider.fields])
                    for provider in integration.providers
                ],
                activity_url=reverse(integration.activity) if can(actor, integration.permission) else "",
            )
        )
    return rows
