"""What 2026-07-28 keeps instead of a session: per caller.

A stateless request has no session, yet the catalogue's rules must hold across requests: a
MANDATORY FIRST CALL is done once before the other tools of its area, a confirmation token works
once. `CallerState` is the catalogue's `SessionState` keyed by the caller (the workspace, the
person and the credential), in Redis so that every web process sees the same: a request may land
on any of them. It lasts MCP_CALLER_STATE_SECONDS after its last change, as a session lasts
MCP_SESSION_IDLE_SECONDS after its last use; a new credential (another token) starts afresh,
as a new session does. `spend_once` records one-time answers (a confirmation given through an
`InputRequiredResult`) so that each confirms one run, wherever the retry lands.
"""

import hashlib
import json
from typing import Any

from django.conf import settings

from apps.core.credentials import Principal
from apps.core.db import connection
from apps.mcp import streams


def caller_digest(principal: Principal) -> str:
    """Names the caller (workspace, person, credential) without revealing the credential's id."""
    who = f"{connection.schema_name}\n{principal.user.pk}\n{principal.credential}"
    return hashlib.sha256(who.encode()).hexdigest()[:40]


class CallerState:
    """The `SessionState` of a caller: a Redis hash, one field per key (JSON), so that
    concurrent calls never undo each other's keys."""

    def __init__(self, digest: str) -> None:
        self.session_id = f"caller:{digest}"
        self._key = streams.redis_name("caller", digest)

    def get(self, key: str, default: Any = None) -> Any:
        raw = streams.redis_client().hget(self._key, key)
        return default if raw is None else json.loads(raw)

    def set(self, key: str, value: Any) -> None:
        pipe = streams.redis_client().pipeline()
        pipe.hset(self._key, key, json.dumps(value, separators=(",", ":")))
        pipe.expire(self._key, settings.MCP_CALLER_STATE_SECONDS)
        pipe.execute()


def spend_once(nonce: str, seconds: int) -> bool:
    """True the first time `nonce` is spent (it stays spent `seconds`), False after."""
    key = streams.redis_name("spent", hashlib.sha256(nonce.encode()).hexdigest()[:40])
    return bool(streams.redis_client().set(key, 1, nx=True, ex=max(1, seconds)))
