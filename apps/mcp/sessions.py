"""The session store: PostgreSQL, in the workspace's schema (synchronous; runs with it active).

A session id is 43 characters of URL-safe base64 (256 random bits, visible ASCII as the
transport requires) and is stored only as its SHA-256 digest. A session is found only in its
workspace's schema, only for the person who opened it, and only until it ends (DELETE) or has
been idle for MCP_SESSION_IDLE_SECONDS. Anything else is "not found", and the client initializes
again.

A live session is kept in each web process for MCP_SESSION_CACHE_SECONDS, so most requests do not
read it from the database. Ending a session (DELETE, erasure) also marks it ended in Redis and
tells every web process at once (`apps.mcp.endings`): while a process listens, a kept session is
served with no round trip at all; while it does not, a kept session is checked against the mark
on every request (one Redis read). Either way an ended session is "not found" at once on every
process. Without Redis the session is read from the database. The catalogue's state of a session
(`StoredSessionState`) is never kept: it is read when a tool needs it.

A session that ran out of idle time ends the first time it is found so (`ended_at` set, counted
once as `atrium_mcp_sessions_total{event="expired"}`, whichever process finds it); one nobody
comes back to is counted when the daily purge removes it.
"""

import hashlib
import json
import logging
import math
import secrets
import threading
import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.core import errors, kept, metrics, onloop
from apps.core.db import connection
from apps.core.kept import Stamp
from apps.mcp import access, endings, streams
from apps.mcp.models import McpSession
from apps.tenancy import routing

logger = logging.getLogger(__name__)

# last_seen_at is written at most this often per session, and at most every eighth of the idle
# time: it only drives idle expiry (24 h by default), and over many workspaces each write is a
# statement in the background for every session in use (bench/RESULTS.md, "Scale-out").
TOUCH_EVERY = timedelta(minutes=5)


def digest_of(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def session_open(
    *,
    user: Any,
    credential: str,
    protocol_version: str,
    client_info: dict[str, Any],
    client_capabilities: dict[str, Any],
) -> tuple[str, McpSession]:
    """A new session; returns the id to hand to the client (shown once) and the row."""
    session_id = secrets.token_urlsafe(32)
    now = timezone.now()
    row = McpSession.objects.create(
        digest=digest_of(session_id),
        user=user,
        credential=credential[:100],
        client_name=str(client_info.get("name") or "")[:200],
        client_version=str(client_info.get("version") or "")[:100],
        protocol_version=protocol_version,
        client_capabilities=client_capabilities,
        last_seen_at=now,
    )
    return session_id, row


@dataclass
class LiveSession:
    """What a request needs of its stored session. `state` is None when it was not read (the
    catalogue's `StoredSessionState` then reads it)."""

    digest: str
    user_id: int
    protocol_version: str
    client_capabilities: dict[str, Any]
    ready_at: datetime | None
    last_seen_at: datetime
    ended_at: datetime | None = None
    state: dict[str, Any] | None = None


# (schema, digest) -> (monotonic time it is kept until untrusted, and at most, the session without
# its state, the stamp of `watch` it was verified in: None when it must be checked in Redis
# before use, and the time from which a use has it read again: `_renew`)
_kept: dict[tuple[str, str], tuple[float, float, LiveSession, Stamp, float]] = {}
# Held where an entry is checked and then replaced, which the background thread's reading again
# (`_renew`) and the listener's forgetting (`_forget`) may do at the same moment.
_kept_lock = threading.Lock()
_KEPT_LIMIT = 10_000
# After Redis failed, kept sessions are read from the database for this long before it is tried again.
REDIS_RETRY_SECONDS = 5.0
_redis_out_until = 0.0


def _forget(keys: list[tuple[str, str]]) -> None:
    with _kept_lock:
        for key in keys:
            _kept.pop(key, None)


def _ended(payload: bytes | str) -> None:
    _forget(endings.decode(payload))


def _revoked(payload: bytes | str) -> None:
    schema_name, user_ids = endings.decode_people(payload)
    access.forget_principals(user_ids=user_ids, schema_name=schema_name)


def _workspaces_changed(payload: bytes | str) -> None:
    routing.forget()
    access.forget_hosts()


# This process's listener (its event loop starts it: consumers.McpConsumer); it also decides how
# long the routes, workspaces and credentials kept in this process live (apps.core.kept).
watch = endings.ChangesWatch(
    {kept.ENDED: _ended, kept.REVOKED: _revoked, kept.WORKSPACES: _workspaces_changed}
)
kept.watched_by(watch)


def session_find(*, digest: str, user: Any) -> LiveSession | None:
    """The live session with this digest opened by `user`, or None (unknown, ended, idle too
    long, or someone else's: all answered alike)."""
    row = _kept_session(digest)
    if row is None:
        stamp = watch.stamp()  # before reading: an end told meanwhile voids it
        row = _load(digest)
        if row is not None and row.ended_at is None:
            _keep(row, stamp)
    now = timezone.now()
    if row is None or row.user_id != user.pk or row.ended_at is not None:
        return None
    idle = timedelta(seconds=settings.MCP_SESSION_IDLE_SECONDS)
    if row.last_seen_at < now - idle:
        _expire(digest, now)
        return None
    if now - row.last_seen_at > min(TOUCH_EVERY, idle / 8):
        if onloop.active():
            # The loop cannot write through the ORM: the background thread writes it shortly (or,
            # with too many jobs waiting there, a later request asks again).
            if kept.later(partial(_touch_in, connection.schema_name, digest, now)):
                row.last_seen_at = now
        else:
            _touch(digest, now)
            row.last_seen_at = now
    return row


def _touch(digest: str, now: datetime) -> None:
    McpSession.objects.filter(digest=digest, last_seen_at__lt=now).update(last_seen_at=now)


def _touch_in(schema_name: str, digest: str, now: datetime) -> None:
    with schema_context(schema_name):
        _touch(digest, now)


def _kept_session(digest: str) -> LiveSession | None:
    key = (connection.schema_name, digest)
    entry = _kept.get(key)
    if entry is None:
        return None
    short_until, long_until, row, verified, renew_from = entry
    now = time.monotonic()
    if now >= long_until:
        _kept.pop(key, None)
        return None
    if watch.trusts(verified):
        # Had it ended, this process would have been told. Read again before it runs out, in the
        # background (as apps.core.kept does), so that a request on the loop never waits for it.
        if now >= renew_from:
            with _kept_lock:
                due = _kept.get(key) is entry
                if due:
                    _kept[key] = (short_until, long_until, row, verified, math.inf)
            if due:
                kept.later(partial(_renew, key))
        return row
    if now >= short_until:
        _kept.pop(key, None)
        return None
    stamp = watch.stamp()
    global _redis_out_until
    if now < _redis_out_until:
        return None  # Redis failed a moment ago: the database says whether it has ended
    try:
        ended = streams.redis_client().exists(_ended_key(digest))
    except Exception as error:
        if errors.unavailable(error) is None:
            raise
        # Not asked again for a few seconds: an unreachable host would cost every request the
        # connection time-out.
        _redis_out_until = time.monotonic() + REDIS_RETRY_SECONDS
        return None
    if ended:
        _kept.pop(key, None)
        return None
    if stamp is not None:
        with _kept_lock:
            if _kept.get(key) is entry:
                _kept[key] = (short_until, long_until, row, stamp, renew_from)
    return row


def _renew(key: tuple[str, str]) -> None:
    """A kept session read again (the background thread): kept anew while live, forgotten once
    ended or gone. Its last use is this process's when later than the stored one (a touch not
    written yet)."""
    schema_name, digest = key
    with schema_context(schema_name):
        stamp = watch.stamp()
        row = _load(digest)
        with _kept_lock:
            # An end told while it was read (the stamp moved) may postdate the read: not kept.
            if row is None or row.ended_at is not None or not watch.trusts(stamp):
                _kept.pop(key, None)
                return
            entry = _kept.get(key)
            if entry is not None:
                row.last_seen_at = max(row.last_seen_at, entry[2].last_seen_at)
            _keep(row, stamp)


def _keep(row: LiveSession, stamp: Stamp) -> None:
    short = settings.MCP_SESSION_CACHE_SECONDS
    if short <= 0:
        return
    if len(_kept) >= _KEPT_LIMIT:
        _kept.clear()
    now = time.monotonic()
    # Trusted, a kept copy lives longer, but well within the idle time: another process's requests
    # move its last use on, and this copy's would make it look idle too soon.
    longest = max(short, min(settings.TOLD_CACHE_SECONDS, settings.MCP_SESSION_IDLE_SECONDS / 4))
    kept_row = replace(row, state=None)
    renew_from = now + longest * kept.RENEW_AFTER
    _kept[(connection.schema_name, row.digest)] = (now + short, now + longest, kept_row, stamp, renew_from)


def _ended_key(digest: str) -> str:
    return streams.session_key(digest, "ended")


def _mark_ended(digests: list[str]) -> None:
    """Tells every web process that these sessions have ended (they may keep them): the marks
    and the message go in one transaction, so a process told checks against marks already set."""
    keys = [(connection.schema_name, digest) for digest in digests]
    _forget(keys)
    if not digests:
        return
    with errors.unless_unavailable(
        logger,
        "ended MCP sessions may still be served by other web processes for %s s (Redis: %s)",
        min(settings.TOLD_CACHE_SECONDS, settings.MCP_SESSION_IDLE_SECONDS / 4),
    ):
        pipe = streams.redis_client().pipeline()
        for digest in digests:
            # Long enough for every kept copy to have expired by itself.
            pipe.set(_ended_key(digest), 1, ex=max(60, int(settings.MCP_SESSION_CACHE_SECONDS * 2)))
        pipe.publish(endings.channel(), endings.encode(keys))
        pipe.execute()


def _expire(digest: str, now: Any) -> None:
    """Ends a session found idle too long; counted once, by whichever request ends it. (Every
    process sees the same idle time: no one needs telling.)"""
    _kept.pop((connection.schema_name, digest), None)
    if McpSession.objects.filter(digest=digest, ended_at__isnull=True).update(ended_at=now):
        metrics.mcp_session("expired")


_COLUMNS = (
    "user_id",
    "protocol_version",
    "client_capabilities",
    "state",
    "ready_at",
    "last_seen_at",
    "ended_at",
)


def _load(digest: str) -> LiveSession | None:
    """One indexed read: plain SQL, no queryset to build."""
    table = connection.ops.quote_name(McpSession._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(_COLUMNS)} FROM {table} WHERE digest = %s", [digest])  # noqa: S608
        found = cursor.fetchone()
    if found is None:
        return None
    values = dict(zip(_COLUMNS, found, strict=True))
    for key in ("client_capabilities", "state"):
        if isinstance(values[key], str):
            values[key] = json.loads(values[key])
    return LiveSession(digest=digest, **values)


def session_mark_ready(*, session: LiveSession) -> None:
    if session.ready_at is None:
        session.ready_at = timezone.now()
        McpSession.objects.filter(digest=session.digest, ready_at__isnull=True).update(
            ready_at=session.ready_at
        )


def session_end(*, session: LiveSession) -> None:
    sessions_end(McpSession.objects.filter(digest=session.digest))


def sessions_end(rows: QuerySet[McpSession]) -> int:
    """Ends these sessions (of the current workspace) on every web process."""
    digests = list(rows.filter(ended_at__isnull=True).values_list("digest", flat=True))
    ended = McpSession.objects.filter(digest__in=digests, ended_at__isnull=True).update(
        ended_at=timezone.now()
    )
    _mark_ended(digests)
    return ended


def live_sessions(*, user_ids: list[int] | None) -> list[str]:
    """Digests of the sessions still usable in the current workspace (of these people)."""
    cutoff = timezone.now() - timedelta(seconds=settings.MCP_SESSION_IDLE_SECONDS)
    rows = McpSession.objects.filter(ended_at__isnull=True, last_seen_at__gte=cutoff)
    if user_ids is not None:
        rows = rows.filter(user_id__in=user_ids)
    return list(rows.values_list("digest", flat=True))


def sessions_purge() -> int:
    """Drops sessions ended or idle for over a week (the current workspace). Those idle that
    never ended (nobody came back to find them expired) are counted as expired here."""
    cutoff = timezone.now() - timedelta(seconds=settings.MCP_SESSION_IDLE_SECONDS) - timedelta(days=7)
    stale = McpSession.objects.filter(last_seen_at__lt=cutoff)
    expired = _deleted(stale.filter(ended_at__isnull=True).delete())
    for _one in range(expired):
        metrics.mcp_session("expired")
    ended = McpSession.objects.filter(ended_at__lt=timezone.now() - timedelta(days=7))
    return expired + _deleted(stale.delete()) + _deleted(ended.delete())


def _deleted(result: tuple[int, dict[str, int]]) -> int:
    return result[1].get(McpSession._meta.label, 0)


def _load_state(digest: str) -> dict[str, Any]:
    table = connection.ops.quote_name(McpSession._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT state FROM {table} WHERE digest = %s", [digest])  # noqa: S608
        found = cursor.fetchone()
    state = found[0] if found is not None else {}
    return json.loads(state) if isinstance(state, str) else dict(state or {})


class StoredSessionState:
    """The `SessionState` handed to the catalogue: reads from the row loaded for this request,
    writes merge one key into the stored JSON, so concurrent calls in one session never undo
    each other's keys."""

    def __init__(self, session: LiveSession) -> None:
        self.session_id = session.digest
        self._digest = session.digest
        self._data: dict[str, Any] | None = dict(session.state) if session.state is not None else None

    def get(self, key: str, default: Any = None) -> Any:
        if self._data is None:
            self._data = _load_state(self._digest)
        return self._data.get(key, default)

    def set(self, key: str, value: Any) -> None:
        encoded = json.dumps({key: value})
        table = connection.ops.quote_name(McpSession._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"UPDATE {table} SET state = state || %s::jsonb WHERE digest = %s",  # noqa: S608  (table name from the model)
                [encoded, self._digest],
            )
        if self._data is not None:
            self._data[key] = value
