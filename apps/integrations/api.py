"""What the provider areas use of Integrations: the effective value of a provider setting (the
workspace's own, encrypted, else the server's), and the declaration each area makes in its
`integration` module of what it is set with and how one cheap request tests it:

    register(Integration(area="web", title=_("Web browser"), providers=(Provider(...), ...), ...))

An area reads its credentials through `setting("ATRIUM_..._TOKEN")` where it builds its adapter,
so that a value an administrator saves on Settings → Integrations is the one its next call uses.
A test never shows the provider's answer: only its outcome in plain words (no secret, no body).
"""

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings
from django.db import connection
from django.utils.translation import gettext as _

from apps.core import encryption

logger = logging.getLogger(__name__)

__all__ = [
    "Field",
    "Integration",
    "Outcome",
    "Provider",
    "http_check",
    "integrations",
    "missing",
    "not_configured",
    "register",
    "setting",
    "unset",
]


def setting(name: str) -> Any:
    """The workspace's own value of the setting `name` when it saved one, else the server's."""
    default = getattr(settings, name)
    if getattr(connection, "schema_name", "public") == "public":
        return default
    # Imported here: areas import this module while the apps are still loading.
    from apps.integrations.models import ProviderSetting

    sealed = ProviderSetting.objects.filter(name=name).values_list("sealed", flat=True).first()
    if sealed is None:
        return default
    try:
        return encryption.decrypt(sealed)
    except encryption.DecryptionFailed:
        logger.error("provider setting %s cannot be decrypted with the configured keys", name)
        return default


@dataclass(frozen=True)
class Outcome:
    """A test's result in plain words: "ok (120 ms)", "refused: the token was rejected (401)"."""

    ok: bool
    words: str


@dataclass(frozen=True)
class Field:
    """One setting an administrator may give the workspace's own value of."""

    setting: str
    label: Any
    secret: bool = False
    url: bool = False
    # The values it may take (the provider picked), when it is a choice.
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Provider:
    key: str
    name: Any
    fields: tuple[Field, ...]
    # One cheap request to the provider with the effective settings (or a check without network).
    test: Callable[[], Outcome]


@dataclass(frozen=True)
class Integration:
    """A provider area as Settings → Integrations shows it."""

    area: str
    title: Any
    # Who may open the area's page of recent activity (the link is shown to them only).
    permission: str
    activity: str
    activity_label: Any
    # The configured provider's name, "" when none is set up.
    configured: Callable[[], str]
    providers: tuple[Provider, ...]
    # The setting that picks the provider, when there is more than one to pick from.
    choice: Field | None = None
    order: int = 100

    def fields(self) -> list[Field]:
        return ([self.choice] if self.choice else []) + [f for p in self.providers for f in p.fields]


_registry: dict[str, Integration] = {}


def register(integration: Integration) -> None:
    _registry[integration.area] = integration


def integrations() -> list[Integration]:
    return sorted(_registry.values(), key=lambda item: (item.order, item.area))


def http_check(
    method: str,
    url: str,
    *,
    timeout: float,
    then: Callable[[httpx.Response], Outcome] | None = None,
    **request: Any,
) -> Outcome:
    """One request to a provider, its outcome in plain words; `then` reads a good answer further
    (a token to test next)."""
    started = time.monotonic()
    try:
        answer = httpx.request(
            method, url, timeout=timeout, trust_env=False, follow_redirects=False, **request
        )
    except httpx.TimeoutException:
        return Outcome(False, _("timed out after %(seconds)s s") % {"seconds": timeout})
    except (httpx.HTTPError, ValueError) as error:
        logger.info("integration test could not connect (%s)", type(error).__name__)
        return Outcome(False, _("could not connect"))
    if answer.status_code in (401, 403):
        return Outcome(
            False, _("refused: the token was rejected (%(status)d)") % {"status": answer.status_code}
        )
    if not 200 <= answer.status_code < 300:
        return Outcome(False, _("the provider answered HTTP %(status)d") % {"status": answer.status_code})
    if then is not None:
        return then(answer)
    return Outcome(True, _("ok (%(ms)d ms)") % {"ms": round((time.monotonic() - started) * 1000)})


def not_configured(missing: str) -> Outcome:
    return Outcome(False, _("not configured: %(missing)s is not set") % {"missing": missing})


def missing(*names: str) -> list[str]:
    """The settings among `names` without an effective value."""
    return [name for name in names if not setting(name)]


def unset(*names: str) -> Outcome | None:
    """A test's "not configured" naming the settings among `names` without a value, or None."""
    absent = missing(*names)
    return not_configured(", ".join(absent)) if absent else None
