"""A Redis client for one use in a process (a health check, a rate limit, the MCP streams),
made at first use: the settings are read then, not at import."""

import redis
from django.conf import settings

from apps.core import onloop


class SharedRedis:
    """Calling it returns the process's client for this use, with `timeout` seconds to connect
    and to answer."""

    def __init__(self, *, timeout: float) -> None:
        self.timeout = timeout
        self._client: redis.Redis | None = None

    def __call__(self) -> redis.Redis:
        # A blocking client: code on the event loop serves the request in a thread instead.
        onloop.forbid("Redis")
        if self._client is None:
            self._client = redis.Redis.from_url(
                settings.REDIS_URL, socket_connect_timeout=self.timeout, socket_timeout=self.timeout
            )
        return self._client
