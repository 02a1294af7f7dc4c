"""The model API generateMarketingContent calls, for its tests: the gateway's scripted model server
on loopback (OpenAI-compatible chat completions, set up as the Form Builder's tests do) answering
copy as JSON."""

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from apps.forms.tests import forms_models
from apps.gateway.tests.servers import ModelServer, openai_text

COPY = {
    "title": "Summer sale: 20% off",
    "body": "<p>Our summer sale starts today.</p><script>alert(1)</script>",
    "variants": ["<p>Twenty percent off, all summer.</p>", "<p>Save big this summer.</p>"],
}


def answers(body: dict[str, Any], index: int) -> dict[str, Any]:
    return openai_text(json.dumps(COPY), usage=(150, 60))


def model_api(responder: Any = answers) -> AbstractContextManager[ModelServer]:
    return forms_models.model_api(responder)


@contextmanager
def metered() -> Iterator[None]:
    """The model server, and every call of apps.catalogue.testing made with an API key to meter."""
    from apps.blog.tests.blog_models import keyed_calls

    with model_api(), keyed_calls():
        yield
