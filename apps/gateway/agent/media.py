"""The model calls of Platform's media tools (apps.core.modelcalls): speech to text through an
OpenAI-compatible `POST {url}/audio/transcriptions` (multipart), and a question about an image
through the configured chat API (an `image_url` data URI in an OpenAI-compatible chat message, an
`image` block for the Messages API).

Each is metered like the agent's calls (apps.gateway.agent.model): the most the call can cost is
reserved against the caller's API key before it is made (the request's bytes taken for input
tokens, plus the most output tokens), and the cost of the usage the API reported is settled after;
a call that failed is released. A transcription whose API reports no tokens (whisper-1 reports the
audio's duration) is charged what was reserved: never less than it may have cost. The ledger's
writes are committed apart from the tool's transaction (apps.apikeys.apart), so the key's row lock
is not held through the call, and a tool that fails after the call has paid for it all the same;
a gateway conversation counts it in its cost.
"""

import dataclasses
import logging
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

from apps.apikeys import apart
from apps.core import modelcalls
from apps.gateway.agent.backends import Backend, ModelError, Price, PriceMissing, Usage, configured_backend

logger = logging.getLogger(__name__)

# The most tokens a transcript is taken to have, for the reservation (about three hours of speech).
TRANSCRIPT_MAX_TOKENS = 32_000
# The most tokens an image is taken to cost, for the reservation (gpt-image-1's largest, high quality).
IMAGE_MAX_TOKENS = 8_000
# A media call waits this long at most (the backend's deadline, when that is shorter).
SECONDS = 300.0


def _backend(model: str) -> Backend:
    try:
        base = configured_backend()
    except ValueError as error:
        raise modelcalls.NotConfigured(f"the model backend's settings are wrong ({error})") from None
    if base is None:
        raise modelcalls.NotConfigured("no model backend is configured (ATRIUM_GATEWAY_MODEL_BACKEND)")
    if not model or model == base.model:
        return base
    prices = settings.GATEWAY_MODEL_PRICES or {}
    try:
        price = Price.parse(prices.get(model))
    except (PriceMissing, ArithmeticError, ValueError):
        raise modelcalls.NotConfigured(
            f"the model {model!r} has no price in ATRIUM_GATEWAY_MODEL_PRICES, and every call is metered"
        ) from None
    return dataclasses.replace(base, model=model, price=price)


def _key(api_key_id: int | None) -> int:
    if api_key_id is None:
        raise modelcalls.NoApiKey()
    return api_key_id


T = TypeVar("T")


def _metered(
    backend: Backend,
    *,
    key: int,
    most: int,
    purpose: str,
    call: Callable[[], T],
    usage: Callable[[T], Usage | None],
) -> tuple[T, int]:
    """`call()` with `most` reserved against the key first, released if it fails, and the cost of
    the usage it reports settled after (what was reserved when it reports none); its answer and
    that cost."""
    # Apart from the tool's transaction: the key's row lock is not held through the call.
    reservation = apart.reserve(key=key, micro_usd=most, purpose=purpose)
    try:
        answer = call()
    except ModelError as error:
        apart.release(reservation=reservation)
        logger.warning("%s: the model call failed (%s)", purpose, error)
        raise modelcalls.CallFailed(str(error)) from None
    except BaseException:
        apart.release(reservation=reservation)
        raise
    used = usage(answer)
    cost = backend.cost(used) if used is not None else most
    apart.settle(
        reservation=reservation,
        micro_usd=cost,
        input_tokens=used.read_tokens if used is not None else 0,
        output_tokens=used.output_tokens if used is not None else 0,
    )
    return answer, cost


class GatewayModels:
    def transcribe(
        self,
        *,
        api_key_id: int | None,
        data: bytes,
        filename: str,
        mime_type: str,
        language: str = "",
        prompt: str = "",
    ) -> modelcalls.Transcript:
        model = settings.GATEWAY_MODEL_TRANSCRIPTION_NAME
        if not model:
            _backend("")  # no backend at all is what is said first
            raise modelcalls.NotConfigured(
                "no transcription model is configured (ATRIUM_GATEWAY_MODEL_TRANSCRIPTION_NAME)"
            )
        backend = _backend(model)
        key = _key(api_key_id)
        try:
            body, content_type = backend.transcription_request(
                audio=data, filename=filename, mime_type=mime_type, language=language, prompt=prompt
            )
        except ModelError as error:
            raise modelcalls.NotConfigured(str(error)) from None
        heard, cost = _metered(
            backend,
            key=key,
            most=backend.max_cost(len(body), TRANSCRIPT_MAX_TOKENS),
            purpose="transcribeAudio",
            call=lambda: backend.transcribe(body, content_type, within=SECONDS),
            usage=lambda heard: heard.usage,
        )
        return modelcalls.Transcript(
            text=heard.text,
            language=heard.language,
            seconds=heard.seconds,
            model=backend.model,
            cost_micro_usd=cost,
        )

    def look_at(
        self, *, api_key_id: int | None, data: bytes, mime_type: str, question: str, max_tokens: int
    ) -> modelcalls.Look:
        backend = _backend(settings.GATEWAY_MODEL_VISION_NAME)
        key = _key(api_key_id)
        body = backend.vision_request(
            question=question, image=data, mime_type=mime_type, max_tokens=max_tokens
        )
        reply, cost = _metered(
            backend,
            key=key,
            most=backend.max_cost(len(body), max_tokens),
            purpose="analyzeImage",
            call=lambda: backend.complete(body, within=SECONDS),
            usage=lambda reply: reply.usage,
        )
        return modelcalls.Look(
            text=reply.text, model=backend.model, cost_micro_usd=cost, cut=reply.stop == "max_tokens"
        )

    def write(
        self, *, api_key_id: int | None, system: str, text: str, max_tokens: int, purpose: str
    ) -> modelcalls.Writing:
        backend = _backend("")
        key = _key(api_key_id)
        body = backend.request(
            system=system,
            messages=[{"role": "user", "content": text}],
            tools=[],
            max_tokens=max_tokens,
            final=True,
        )
        reply, cost = _metered(
            backend,
            key=key,
            most=backend.max_cost(len(body), max_tokens),
            purpose=purpose,
            call=lambda: backend.complete(body, within=SECONDS),
            usage=lambda reply: reply.usage,
        )
        return modelcalls.Writing(
            text=reply.text, model=backend.model, cost_micro_usd=cost, cut=reply.stop == "max_tokens"
        )

    def draw(self, *, api_key_id: int | None, prompt: str, size: str, purpose: str) -> modelcalls.Drawing:
        model = settings.GATEWAY_MODEL_IMAGE_NAME
        if not model:
            _backend("")  # no backend at all is what is said first
            raise modelcalls.NotConfigured("no image model is configured (ATRIUM_GATEWAY_MODEL_IMAGE_NAME)")
        backend = _backend(model)
        key = _key(api_key_id)
        try:
            body = backend.image_request(prompt=prompt, size=size)
        except ModelError as error:
            raise modelcalls.NotConfigured(str(error)) from None
        drawn, cost = _metered(
            backend,
            key=key,
            most=backend.max_cost(len(body), IMAGE_MAX_TOKENS),
            purpose=purpose,
            call=lambda: backend.draw(body, within=SECONDS),
            usage=lambda drawn: drawn.usage,
        )
        return modelcalls.Drawing(
            data=drawn.data, model=backend.model, cost_micro_usd=cost, revised_prompt=drawn.revised_prompt
        )


def install() -> None:
    modelcalls.register(GatewayModels())
