"""The model API generateMarketingContent calls, for its tests: the gateway's scripted model server
on loopback (OpenAI-compatible chat completions) answering copy as JSON, with the settings pointing
at it."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.test import override_settings

from apps.gateway.tests.servers import ModelServer, openai_text

PRICES = {"chat-test": {"input": 1, "output": 2}}
COPY = {
    "title": "Summer sale: 20% off",
    "body": "<p>Our summer sale starts today.</p><script>alert(1)</script>",
    "variants": ["<p>Twenty percent off, all summer.</p>", "<p>Save big this summer.</p>"],
}


def answers(body: dict[str, Any], index: int) -> dict[str, Any]:
    return openai_text(json.dumps(COPY), usage=(150, 60))


@contextmanager
def model_api(responder: Any = answers) -> Iterator[ModelServer]:
    server = ModelServer("openai", responder).start()
    try:
        with override_settings(
            GATEWAY_MODEL_BACKEND="openai",
            GATEWAY_MODEL_URL=server.url,
            GATEWAY_MODEL_NAME="chat-test",
            GATEWAY_MODEL_API_KEY=server.api_key,
            GATEWAY_MODEL_PRICES=PRICES,
            GATEWAY_MODEL_RETRY_BASE_SECONDS=0.01,
        ):
            yield server
    finally:
        server.stop()


@contextmanager
def metered() -> Iterator[None]:
    """The model server, and every call of apps.catalogue.testing made with an API key to meter."""
    from apps.blog.tests.blog_models import keyed_calls

    with model_api(), keyed_calls():
        yield
