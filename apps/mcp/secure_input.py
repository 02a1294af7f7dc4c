"""Secure input at the MCP door: URL-mode elicitation (MCP 2025-11-25, SEP-1036).

A tool that needs a value which must never pass through the model (the password of an outside
account, a credential, a payment) asks for it with `ctx.secure_input(purpose=..., message=...,
label=...)` (apps.catalogue.secure_input, where the tools' side is described). This module is
what the MCP door puts behind that call:

1. A value the person already entered for that purpose (and that no tool took yet) is returned,
   and forgotten here: the tool keeps it, encrypted, in its own store.
2. Otherwise a link is made: `{workspace's own origin}/settings/secure-input/<token>/`. The token
   is Fernet-encrypted (apps.core.encryption) and carries the elicitation id, the person, the
   workspace, the purpose, the message and label, the session and an expiry
   (MCP_SECURE_INPUT_SECONDS): nothing about the request is stored until the person answers,
   so a tool that asks inside its transaction leaves nothing behind when that transaction rolls
   back, and nobody can read the link's contents.
3. A client that negotiated 2025-11-25 and declares `elicitation.url` receives
   `elicitation/create` with `mode: "url"`, the `elicitationId`, the link and the message, on
   the call's stream. Once it answers `accept` (it opened the link), the tool waits (at most
   MCP_ELICITATION_TIMEOUT_SECONDS, polling the store) for the person to submit the page, and
   goes on with the value. `decline` / `cancel`: SecureInputDeclined, nothing is done.
4. A 2025-11-25 client without `elicitation.url` (or one that could not be asked) gets the
   JSON-RPC error -32042 (URL elicitation required) with `data.elicitations`; an older client
   gets a tool error whose text gives the link. Either way the client calls the tool again once
   the person has entered the value (step 1).

The page (`apps.mcp.secure_pages`) requires the person to be signed in as the same person the
link was made for, stores the value encrypted (`SecureInput.value_encrypted`), and sends
`notifications/elicitation/complete` with the elicitation id to the session's stream, so a
client knows it may retry.

Another door or a Celery worker (tasks, apps.mcp.jobs) uses `provider(...)` with `ask_url=None`:
it never asks, so it returns a stored value or raises SecureInputRequired.
"""

import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.catalogue.secure_input import (
    MAX_PURPOSE,
    SecureInputDeclined,
    SecureInputRequest,
    SecureInputRequired,
)
from apps.core import encryption, errors
from apps.core.db import connection
from apps.mcp import protocol, streams
from apps.mcp.models import SecureInput

logger = logging.getLogger(__name__)

PAGE_PATH = "/settings/secure-input/"
# How often a tool waiting for the person's value looks for it.
POLL_SECONDS = 0.5
MAX_VALUE = 4096
COMPLETE = "notifications/elicitation/complete"


@dataclass(frozen=True)
class Link:
    """What a link's token carries."""

    elicitation_id: str
    user_id: int
    schema_name: str
    purpose: str
    message: str
    label: str
    # The MCP session that asked (its digest), for the completion notification; "" for none.
    digest: str
    expires_at: float

    @property
    def expired(self) -> bool:
        return time.time() >= self.expires_at


def make_link(request: SecureInputRequest, *, user_id: int, digest: str, base_url: str) -> tuple[Link, str]:
    """A new link for `request`: (what it carries, its absolute URL on the workspace's origin)."""
    if not request.purpose or len(request.purpose) > MAX_PURPOSE:
        raise ValueError(f"a secure input's purpose is 1 to {MAX_PURPOSE} characters")
    link = Link(
        elicitation_id=secrets.token_urlsafe(18),
        user_id=user_id,
        schema_name=connection.schema_name,
        purpose=request.purpose,
        message=str(request.message),
        label=str(request.label),
        digest=digest,
        expires_at=time.time() + settings.MCP_SECURE_INPUT_SECONDS,
    )
    payload = {
        "e": link.elicitation_id,
        "u": link.user_id,
        "s": link.schema_name,
        "p": link.purpose,
        "m": link.message,
        "l": link.label,
        "d": link.digest,
        "x": link.expires_at,
    }
    token = encryption.encrypt(json.dumps(payload, separators=(",", ":")))
    return link, f"{base_url.rstrip('/')}{PAGE_PATH}{token}/"


def read_link(token: str) -> Link | None:
    """The link a token carries, if it is one of ours, for this workspace, and not expired."""
    try:
        payload = json.loads(encryption.decrypt(token))
        link = Link(
            elicitation_id=str(payload["e"]),
            user_id=int(payload["u"]),
            schema_name=str(payload["s"]),
            purpose=str(payload["p"]),
            message=str(payload["m"]),
            label=str(payload["l"]),
            digest=str(payload["d"]),
            expires_at=float(payload["x"]),
        )
    except (encryption.DecryptionFailed, ValueError, KeyError, TypeError):
        return None
    if link.schema_name != connection.schema_name or link.expired:
        return None
    return link


def answered(link: Link) -> bool:
    return SecureInput.objects.filter(elicitation_id=link.elicitation_id).exists()


def complete(link: Link, value: str) -> None:
    """Keeps the value the person entered (encrypted) and tells the session's client."""
    SecureInput.objects.create(
        elicitation_id=link.elicitation_id,
        user_id=link.user_id,
        purpose=link.purpose,
        value_encrypted=encryption.encrypt(value),
        expires_at=timezone.now() + timedelta(seconds=settings.MCP_SECURE_INPUT_SECONDS),
    )
    logger.info("secure input %s entered", link.elicitation_id[:8])
    if link.digest:
        notification = protocol.notification(COMPLETE, {"elicitationId": link.elicitation_id})
        transaction.on_commit(lambda: _tell(link.digest, notification))


def _tell(digest: str, notification: dict[str, Any]) -> None:
    # The value is kept either way; only the client's hint to retry is lost without Redis.
    with errors.unless_unavailable(logger, "the elicitation's completion was not sent: %s"):
        streams.publish(digest, notification)


def take(*, user_id: int, purpose: str) -> str | None:
    """The value the person entered for `purpose` (the newest that has not expired), once: every
    value kept for it is forgotten here. None when there is none."""
    rows = SecureInput.objects.filter(user_id=user_id, purpose=purpose)
    newest = rows.filter(expires_at__gt=timezone.now()).order_by("-created_at", "-pk").first()
    if newest is None:
        return None
    rows.delete()
    try:
        return encryption.decrypt(newest.value_encrypted)
    except encryption.DecryptionFailed:
        logger.warning("secure input %s could not be decrypted (keys changed?)", newest.elicitation_id[:8])
        return None


def purge() -> int:
    """Drops values no tool took in time (the nightly sweep)."""
    deleted, _ = SecureInput.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted


def fallback_text(request: SecureInputRequest, url: str) -> str:
    return (
        f"{request.message} The user must enter it on this page, never in the conversation: {url} "
        "(it asks them to sign in if needed). Nothing was done: give them the link, and call this "
        "tool again with the same arguments once they say they have entered it."
    )


def provider(
    *,
    user_id: int,
    digest: str,
    base_url: str,
    ask_url: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    is_cancelled: Callable[[], bool] = lambda: False,
) -> Callable[[SecureInputRequest], str]:
    """What `ToolContext.secure_input_door` calls (module docstring, steps 1 to 4). `ask_url`
    sends a URL-mode `elicitation/create` and returns the client's answer (None: never ask)."""

    def secure_input(request: SecureInputRequest) -> str:
        value = take(user_id=user_id, purpose=request.purpose)
        if value is not None:
            return value
        link, url = make_link(request, user_id=user_id, digest=digest, base_url=base_url)
        elicitation = {
            "mode": "url",
            "elicitationId": link.elicitation_id,
            "url": url,
            "message": link.message,
        }
        if ask_url is not None:
            try:
                answer = ask_url(elicitation)
            except Exception as error:  # the question did not reach the person: they get the link
                logger.info("URL elicitation %s not asked: %s", link.elicitation_id[:8], type(error).__name__)
            else:
                action = answer.get("action")
                if action == "accept":
                    value = _wait_for(user_id, request.purpose, is_cancelled)
                    if value is not None:
                        return value
                elif action in {"decline", "cancel"}:
                    raise SecureInputDeclined()
        raise SecureInputRequired([elicitation], fallback_text(request, url))

    return secure_input


def _wait_for(user_id: int, purpose: str, is_cancelled: Callable[[], bool]) -> str | None:
    deadline = time.monotonic() + settings.MCP_ELICITATION_TIMEOUT_SECONDS
    while time.monotonic() < deadline and not is_cancelled():
        value = take(user_id=user_id, purpose=purpose)
        if value is not None:
            return value
        time.sleep(POLL_SECONDS)
    return None
