"""The model API the blog's writing and drawing tools call, for their tests: the gateway's scripted
model server on loopback (OpenAI-compatible chat completions and Images API), with the settings
pointing at it, and calls whose connection has an API key to meter."""

import base64
import io
import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from django.test import override_settings

from apps.apikeys.services import api_key_create
from apps.gateway.tests.servers import ModelServer, openai_text

PRICES = {"chat-test": {"input": 1, "output": 2}, "image-test": {"input": 5, "output": 40}}
TRANSLATED = "Hallo Welt, das ist übersetzt."
POLISHED = "A clearer sentence, polished."


def png(color: str = "teal", size: tuple[int, int] = (96, 64)) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    exif = Image.Exif()
    exif[0x010F] = "ModelCam"
    Image.new("RGB", size, color=color).save(out, format="JPEG", exif=exif.tobytes())
    return out.getvalue()


def answers(body: dict[str, Any], index: int) -> dict[str, Any]:
    """An image for an Images API request; a translation or a polished draft for a chat."""
    if "prompt" in body and "messages" not in body:
        return {
            "created": 1,
            "data": [{"b64_json": base64.b64encode(png()).decode(), "revised_prompt": body["prompt"]}],
            "usage": {"input_tokens": 20, "output_tokens": 1000},
        }
    system = body["messages"][0]["content"]
    post = json.loads(body["messages"][-1]["content"])
    if "translate" in system.lower():
        answer = {
            "title": f"DE {post['title']}",
            "excerpt": "Kurz gesagt.",
            "body": f"<p>{TRANSLATED}</p><script>alert(1)</script>",
        }
    else:
        answer = {"title": f"{post['title']} (polished)", "body": f"<p>{POLISHED}</p>"}
    return openai_text(json.dumps(answer, ensure_ascii=False), usage=(300, 120))


@contextmanager
def model_api(
    responder: Callable[[dict[str, Any], int], Any] = answers, *, protocol: str = "openai", **settings: Any
) -> Iterator[ModelServer]:
    server = ModelServer(protocol, responder).start()
    try:
        configured = {
            "GATEWAY_MODEL_BACKEND": protocol,
            "GATEWAY_MODEL_URL": server.url,
            "GATEWAY_MODEL_NAME": "chat-test",
            "GATEWAY_MODEL_API_KEY": server.api_key,
            "GATEWAY_MODEL_PRICES": PRICES,
            "GATEWAY_MODEL_IMAGE_NAME": "image-test",
            "GATEWAY_MODEL_RETRY_BASE_SECONDS": 0.01,
            **settings,
        }
        with override_settings(**configured):
            yield server
    finally:
        server.stop()


@contextmanager
def keyed_calls() -> Iterator[None]:
    """Every call of apps.catalogue.testing made with a new API key of the caller's."""
    from apps.catalogue import testing

    real = testing.principal_for

    def with_key(user: Any, **given: Any) -> Any:
        if given.get("api_key_id") is None:
            given["api_key_id"] = api_key_create(user=user, label=f"Blog {uuid.uuid4().hex[:8]}").key.pk
        return real(user, **given)

    with mock.patch.object(testing, "principal_for", with_key):
        yield


@contextmanager
def metered() -> Iterator[None]:
    with model_api(), keyed_calls():
        yield
