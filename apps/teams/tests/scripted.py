"""The model API team members call in tests: the gateway's scripted model server on loopback
(OpenAI-compatible chat completions or the Anthropic Messages API), with the settings pointing
at it. `responder(body, index)` answers each call (by default: a short text)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.test import override_settings

from apps.gateway.tests.servers import ModelServer, openai_text

PRICES = {"team-test": {"input": 1, "output": 2}}


def done(body: dict[str, Any], index: int) -> dict[str, Any]:
    return openai_text("Done: nothing needed a tool.")


@contextmanager
def model_api(
    responder: Callable[[dict[str, Any], int], Any] = done, *, protocol: str = "openai"
) -> Iterator[ModelServer]:
    server = ModelServer(protocol, responder).start()
    try:
        with override_settings(
            GATEWAY_MODEL_BACKEND=protocol,
            GATEWAY_MODEL_URL=server.url,
            GATEWAY_MODEL_NAME="team-test",
            GATEWAY_MODEL_API_KEY=server.api_key,
            GATEWAY_MODEL_PRICES=PRICES,
            GATEWAY_MODEL_RETRIES=0,
            GATEWAY_MODEL_RETRY_BASE_SECONDS=0.01,
        ):
            yield server
    finally:
        server.stop()
