"""Credentials of the agent doors: one check that every scheme plugs into.

The MCP endpoint takes two schemes (SPEC 5): an OAuth access token, or a personal access token
together with an `X-Api-Key`. Each scheme lives in its own app and registers an authenticator in
that app's `credentials` module (autodiscovered at start-up):

    @credentials.register(order=10)
    def oauth_bearer(request: CredentialRequest) -> Principal | None:
        ...

An authenticator returns None when the request does not use its scheme, a Principal when it
does and the credential is good, and raises an AppError (Unauthenticated, or the scheme's own
error such as KEY_REVOKED) when it does but the credential is not good. `authenticate` asks them
in order and returns the first Principal; None means "no credential at all" and the door answers
with its challenge (MCP: 401 with WWW-Authenticate, SPEC 4.1).

Authenticators are synchronous (they read the database); async doors call `authenticate`
through `asgiref.sync.sync_to_async`. They run with the request's workspace schema active.

A door may keep a good credential a moment (the MCP endpoint does). Whatever makes credentials
stop being good (a key or token revoked, an OAuth token deleted) calls `revoked`, in the
transaction that does it: the `credentials_revoked` signal lets such doors drop them.

The audit log identifies a credential without revealing it (`Principal.credential`: "pat:14",
"oauth:7"). The app that makes such identifiers says how to name them for people, in the same
`credentials` module:

    @credentials.namer("pat", kind=_("access token"))
    def access_tokens(ids: list[str]) -> dict[str, str]:   # id -> the token's name
        ...

`names(["pat:14", "oauth:7", ...])` then gives each one's kind and name, in one query per kind.
"""

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.dispatch import Signal
from django.utils import timezone

from apps.core.actors import Actor

# Sent with `schema_name` and `user_ids` (sorted, at least one), in the process that made the change.
credentials_revoked = Signal()

# How often a credential's last use is written (a token's or key's `last_used_at`, a connected
# app's): it is for people reading the keys and tokens pages, not for auditing (the tool-call log
# is), and each write is a statement more in the credential's check, which every process reads
# again in the background for each credential in use (apps.core.kept).
LAST_USED_EVERY = timedelta(minutes=5)


@dataclass(frozen=True)
class CredentialRequest:
    """What an authenticator may look at."""

    # Header names lower-cased, as ASGI gives them.
    headers: Mapping[str, str]
    # The workspace's origin as the client reached it: "http://127.0.0.1:8000" (no trailing slash).
    base_url: str
    # Which door is asking: "mcp", "gateway", "quick-setup", ...
    door: str


@dataclass(frozen=True)
class Principal:
    """Who is calling, through which credential. Every permission check still goes through
    `apps.core.actors.can(principal.user, ...)`: the credential only narrows."""

    user: Actor
    # "oauth" or "access_token" (personal access token + API key).
    scheme: str
    # OAuth scopes granted to the token; the access-token scheme has {"mcp"} (everything the role allows).
    scopes: frozenset[str]
    # Identifies the credential in the audit log without revealing it: "oauth:<pk>", "pat:<pk>".
    credential: str
    # The OAuth client's self-declared name, or the API key's label.
    client: str = ""
    api_key_id: int | None = None
    # The tool profile the credential is pinned to ("" for none): tools/list shows no more.
    profile: str = ""
    # When it stops being good by itself (time.time(); an access token's expiry), None: not before
    # it is revoked. A door keeps it no longer (apps.core.kept).
    good_until: float | None = None
    # It may stop being good without the doors being told (a key's budget being spent): a door
    # keeps it only for its short while.
    kept_briefly: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)


Authenticator = Callable[[CredentialRequest], Principal | None]

_authenticators: list[tuple[int, str, Authenticator]] = []


def register(order: int = 100) -> Callable[[Authenticator], Authenticator]:
    def decorator(function: Authenticator) -> Authenticator:
        name = f"{function.__module__}.{function.__qualname__}"
        if not any(existing == name for _order, existing, _fn in _authenticators):
            _authenticators.append((order, name, function))
            _authenticators.sort(key=lambda entry: (entry[0], entry[1]))
        return function

    return decorator


def authenticate(request: CredentialRequest) -> Principal | None:
    for _order, _name, authenticator in _authenticators:
        principal = authenticator(request)
        if principal is not None:
            return principal
    return None


@dataclass(frozen=True)
class CredentialName:
    """How a page names a credential of the audit log: its kind ("access token", "connected
    app") and its own name; `found` is False when the credential no longer exists."""

    kind: str
    name: str
    found: bool = True


# prefix -> (kind, the function naming ids of that prefix: id -> name, leaving out unknown ids)
Namer = Callable[[list[str]], Mapping[str, str]]
_namers: dict[str, tuple[Any, Namer]] = {}


def namer(prefix: str, *, kind: Any) -> Callable[[Namer], Namer]:
    """Registers how to name the credentials "<prefix>:<id>" (or just "<prefix>")."""

    def decorator(function: Namer) -> Namer:
        _namers[prefix] = (kind, function)
        return function

    return decorator


def names(identifiers: Iterable[str]) -> dict[str, CredentialName]:
    """The kind and name of each credential identifier, run in the current workspace. An id whose
    credential is gone is named by its id (`found` False); an identifier of no registered kind
    keeps its text as its name."""
    by_prefix: dict[str, set[str]] = {}
    for identifier in identifiers:
        prefix, _sep, ident = identifier.partition(":")
        by_prefix.setdefault(prefix, set()).add(ident)
    named: dict[str, CredentialName] = {}
    for prefix, ids in by_prefix.items():
        registered_namer = _namers.get(prefix)
        if registered_namer is None:
            named.update(
                {_joined(prefix, ident): CredentialName("", _joined(prefix, ident)) for ident in ids}
            )
            continue
        kind, function = registered_namer
        found = function(sorted(ids))
        for ident in ids:
            if ident in found:
                named[_joined(prefix, ident)] = CredentialName(str(kind), found[ident])
            else:
                named[_joined(prefix, ident)] = CredentialName(
                    str(kind), f"#{ident}" if ident else "", found=False
                )
    return named


def _joined(prefix: str, ident: str) -> str:
    return f"{prefix}:{ident}" if ident else prefix


def registered() -> list[str]:
    return [name for _order, name, _fn in _authenticators]


# Set while a change that tells the doors itself revokes credentials (a person deactivated).
_quiet: ContextVar[bool] = ContextVar("atrium_credentials_quiet", default=False)


@contextmanager
def quietly() -> Iterator[None]:
    """Credentials revoked inside are not told to the doors one by one: the caller tells them
    once (a person's deactivation, which the doors hear of as a change of their access)."""
    token = _quiet.set(True)
    try:
        yield
    finally:
        _quiet.reset(token)


def revoked(*, user_ids: Iterable[int | None]) -> None:
    """Tells the doors that credentials of these people in the current workspace are no longer
    good, or no longer what a door keeps of them (a key's profile or budget). Called inside the
    transaction that changes them."""
    if _quiet.get():
        return
    ids = sorted({user_id for user_id in user_ids if user_id is not None})
    schema_name = getattr(connection, "schema_name", "public")
    if ids and schema_name != "public":
        credentials_revoked.send(sender=None, schema_name=schema_name, user_ids=ids)


def revoke_all(credentials: QuerySet[Any]) -> int:
    """Revokes the credentials (rows with `revoked_at` and `user_id`) not revoked yet, as a
    person's soft delete does, and tells the doors. Returns how many were revoked."""
    live = credentials.filter(revoked_at__isnull=True)
    people = list(live.values_list("user_id", flat=True).distinct())
    count = live.update(revoked_at=timezone.now())
    revoked(user_ids=people)
    return count
