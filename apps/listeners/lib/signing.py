"""Inbound webhooks' signatures, as Stripe and GitHub sign theirs: the sender puts
`X-Atrium-Timestamp` (Unix seconds) and `X-Atrium-Signature: sha256=<hex>` on the request, the
HMAC-SHA256 of `<timestamp>.<body>` with the listener's secret. A request outside the replay
window (5 minutes either way) is refused even when signed."""

import hashlib
import hmac
import time

REPLAY_WINDOW_SECONDS = 300
SIGNATURE_HEADER = "X-Atrium-Signature"
TIMESTAMP_HEADER = "X-Atrium-Timestamp"


def signature(secret: str, timestamp: str, body: bytes) -> str:
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def problem(secret: str, timestamp: str, given: str, body: bytes, now: float | None = None) -> str:
    """Why the request is refused ("" when it is signed and fresh)."""
    if not secret:
        return "the listener has no signing secret"
    if not timestamp or not given:
        return "the signature or its timestamp is missing"
    try:
        sent = int(timestamp)
    except ValueError:
        return "the timestamp is not Unix seconds"
    if abs((now if now is not None else time.time()) - sent) > REPLAY_WINDOW_SECONDS:
        return "the timestamp is outside the replay window"
    if not hmac.compare_digest(signature(secret, timestamp, body), given.strip()):
        return "the signature does not match"
    return ""
