"""The model API the form field generators call, for their tests: the gateway's scripted model
server on loopback (OpenAI-compatible chat completions) answering fields of the kind the tool asks
for, with the settings pointing at it."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.test import override_settings

from apps.blog.tests.blog_models import keyed_calls
from apps.gateway.tests.servers import ModelServer, openai_text

PRICES = {"chat-test": {"input": 1, "output": 2}}
PROPOSALS = {
    "text (one line)": [
        {"type": "phone", "label": "Phone number"},
        {"type": "date", "label": "Birth date"},
        {"type": "choice", "label": "Not asked for", "options": ["x"]},
    ],
    "choice (": [{"type": "choice", "label": "How happy are you?", "options": ["Very", "Somewhat", "Not"]}],
    "file (": [{"type": "file", "label": "Your CV", "accept": ["application/pdf"], "required": True}],
    "heading (": [{"type": "heading", "label": "Your details"}, {"type": "paragraph", "text": "Answer all."}],
}


def answers(body: dict[str, Any], index: int) -> dict[str, Any]:
    system = body["messages"][0]["content"]
    fields = next(value for marker, value in PROPOSALS.items() if marker in system)
    return openai_text(json.dumps({"fields": fields}), usage=(200, 80))


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
    with model_api(), keyed_calls():
        yield
