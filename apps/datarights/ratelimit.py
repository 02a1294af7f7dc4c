"""A fixed-window counter per client address, in Redis (shared by every web process).

The address is personal data, so Redis holds only a keyed digest of it, for one window.
"""

import hashlib
import hmac
import logging
import time
from dataclasses import dataclass

import redis
from django.conf import settings

from apps.core.shared_redis import SharedRedis

logger = logging.getLogger(__name__)
_redis = SharedRedis(timeout=1)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    retry_after: int


def hit(scope: str, client: str, *, limit: int, window: int) -> Decision:
    """Counts one request of `client` in `scope`; refused past `limit` per `window` seconds.

    If Redis does not answer, the request is let through (and a warning logged): the limiter
    protects the service, it must not take a legal request down with it.
    """
    now = int(time.time())
    bucket = now // window
    digest = hmac.new(settings.SECRET_KEY.encode(), client.encode(), hashlib.sha256).hexdigest()[:32]
    key = f"atrium:ratelimit:{scope}:{digest}:{bucket}"
    try:
        pipeline = _redis().pipeline()
        pipeline.incr(key)
        pipeline.expire(key, window + 1)
        count, _ = pipeline.execute()
    except redis.RedisError as error:
        logger.warning("rate limit %s not applied: redis unavailable (%s)", scope, type(error).__name__)
        return Decision(allowed=True, retry_after=0)
    if count > limit:
        return Decision(allowed=False, retry_after=max(1, (bucket + 1) * window - now))
    return Decision(allowed=True, retry_after=0)
