"""The model API the marketing generators call, for their tests: the gateway's scripted model server
on loopback (OpenAI-compatible chat completions) answering a sequence step or a plan."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from apps.blog.tests.blog_models import keyed_calls
from apps.forms.tests.forms_models import model_api
from apps.gateway.tests.servers import ModelServer, openai_text

PLAN = {
    "name": "Spring push",
    "summary": "Grow sign-ups by e-mail.",
    "goals": [{"text": "200 sign-ups", "metric": "signups", "target": 200}],
    "channels": ["email", "sequences", "tv"],
    "budgetSplit": {"email": 0.6, "sequences": 0.4},
}


def answers(body: dict[str, Any], index: int) -> dict[str, Any]:
    if "drip sequence" in body["messages"][0]["content"]:
        return openai_text(
            json.dumps({"subject": "Still there?", "body": "Hello {first_name}"}), usage=(100, 50)
        )
    return openai_text(json.dumps(PLAN), usage=(100, 50))


@contextmanager
def marketing_api(responder: Any = answers) -> Iterator[ModelServer]:
    with model_api(responder) as server:
        yield server


@contextmanager
def metered() -> Iterator[None]:
    """The model server, and every call of apps.catalogue.testing made with an API key to meter."""
    with marketing_api(), keyed_calls():
        yield
