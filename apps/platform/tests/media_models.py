"""The model API the media tools call, for their tests: the gateway's scripted model server on
loopback (OpenAI-compatible: chat completions with image parts, audio transcriptions as multipart
form data), with the settings pointing at it; and calls whose connection has an API key to meter."""

import io
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from django.test import override_settings

from apps.apikeys.services import api_key_create
from apps.gateway.tests.servers import ModelServer, openai_text

PRICES = {
    "chat-test": {"input": 1, "output": 2},
    "vision-test": {"input": 2, "output": 8},
    "transcribe-test": {"input": 3, "output": 10},
}
SAID = "Please send the signed contract by Friday."
SEEN = "A red square on a white background; no text."


def answers(body: dict[str, Any], index: int) -> dict[str, Any]:
    """A transcription for a form with a file, else a vision model's answer."""
    if isinstance(body.get("file"), dict):
        return {"text": SAID, "usage": {"type": "tokens", "input_tokens": 120, "output_tokens": 11}}
    return openai_text(SEEN, usage=(800, 14))


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
            "GATEWAY_MODEL_VISION_NAME": "vision-test",
            "GATEWAY_MODEL_TRANSCRIPTION_NAME": "transcribe-test",
            "GATEWAY_MODEL_RETRY_BASE_SECONDS": 0.01,
            **settings,
        }
        with override_settings(**configured):
            yield server
    finally:
        server.stop()


@contextmanager
def keyed_calls() -> Iterator[None]:
    """Every call of apps.catalogue.testing made with an API key of the caller's (a new one, in the
    workspace of the moment), as a gateway or MCP connection with a key is."""
    from apps.catalogue import testing

    real = testing.principal_for

    def with_key(user: Any, **given: Any) -> Any:
        if given.get("api_key_id") is None:
            given["api_key_id"] = api_key_create(user=user, label=f"Media {uuid.uuid4().hex[:8]}").key.pk
        return real(user, **given)

    with mock.patch.object(testing, "principal_for", with_key):
        yield


@contextmanager
def metered() -> Iterator[None]:
    with model_api(), keyed_calls():
        yield


def png(
    color: str = "red", size: tuple[int, int] = (64, 48), *, exif: bytes | None = None, fmt: str = "PNG"
) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    image = Image.new("RGB", size, color=color)
    image.save(out, format=fmt, **({"exif": exif} if exif else {}))
    return out.getvalue()


def wav(seconds: float = 0.2) -> bytes:
    """A short silent WAV (PCM, 8 kHz, mono)."""
    import wave

    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        writer.writeframes(b"\x00\x00" * int(8000 * seconds))
    return out.getvalue()
