"""What waits in the agent's queue, as the sweeper needs to know it.

Agent turns (`run_conversation`) are routed to their own Celery queue (settings
GATEWAY_AGENT_QUEUE, CELERY_TASK_ROUTES). Each is sent with a message header saying when
(`SENT_AT`, Unix seconds, the sender's clock). The Redis transport keeps a queue as a list that
senders push on the left and workers pop from the right, one list per priority step (we send
without a priority: everything goes to the first); a message taken by a worker leaves the list
(it waits, unacknowledged, in the transport's own hash until acknowledged).

So the right end of the lists is the oldest turn still waiting, and `oldest_waiting()` says when it
was sent. A conversation still open whose turn was sent well before that is not waiting in the
queue: its message was lost (a broker that lost its data, a worker that died between taking it
and claiming the conversation). One sent after it may simply be waiting behind a backlog, however
long: the sweeper leaves it alone (apps.gateway.services.conversations_recover).
"""

import json
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

# The message header carrying when a turn was sent (Unix seconds, float).
SENT_AT = "atrium_sent_at"


class BacklogUnknown(Exception):
    """The agent's queue could not be read (broker unreachable, not Redis, a message without
    `SENT_AT` at its head)."""


@dataclass(frozen=True)
class Backlog:
    """What the sweeper knows of the agent's queue: whether it could be read, and when the oldest
    turn waiting there was sent (None: nothing waits)."""

    known: bool
    oldest: float | None = None
    why_unknown: str = ""

    def oldest_at(self) -> datetime | None:
        return datetime.fromtimestamp(self.oldest, tz=UTC) if self.oldest is not None else None


def read(*, queue: str | None = None, app: Any = None) -> Backlog:
    try:
        return Backlog(True, oldest_waiting(queue=queue, app=app))
    except BacklogUnknown as error:
        logger.warning(
            "the agent's queue could not be read (%s); lost turns are looked for next sweep", error
        )
        return Backlog(False, why_unknown=str(error))


def sent_headers() -> dict[str, Any]:
    return {SENT_AT: time.time()}


def oldest_waiting(*, queue: str | None = None, app: Any = None) -> float | None:
    """When the oldest message waiting in `queue` (default: the agent's) was sent, in Unix
    seconds; None when nothing waits. BacklogUnknown when that cannot be told."""
    if app is None:
        from celery import current_app as app
    queue = queue or settings.GATEWAY_AGENT_QUEUE
    try:
        with app.connection_for_read() as connection:
            connection.ensure_connection(max_retries=1)
            channel = connection.default_channel
            client = channel.client
            steps = getattr(channel, "priority_steps", [0])
            keys = [channel._q_for_pri(queue, step) for step in steps]
            with client.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.lindex(key, -1)
                heads = pipe.execute()
    except AttributeError as error:
        raise BacklogUnknown(f"the broker's transport is not Redis ({error})") from error
    except Exception as error:
        raise BacklogUnknown(f"the broker could not be read: {error}") from error
    oldest: float | None = None
    for raw in heads:
        if raw is None:
            continue
        sent = _sent_at(raw)
        if sent is None:
            raise BacklogUnknown(f"the oldest message in {queue!r} does not say when it was sent")
        oldest = sent if oldest is None else min(oldest, sent)
    return oldest


def _sent_at(raw: bytes | str) -> float | None:
    try:
        message = json.loads(raw)
        value = message["headers"][SENT_AT]
        return float(value)
    except (ValueError, TypeError, KeyError):
        return None
