"""Model backends of the service's agent, behind one interface, chosen by settings.

    backend = configured_backend()            # None: no model (the built-in agent answers)
    reply = backend.complete(system=..., messages=[...], tools=[...], max_tokens=..., final=False)
    reply.text, reply.tool_calls, reply.usage  # usage: what the API reported, for the bill

Two protocols:
- `openai`: an OpenAI-compatible chat-completions API (`POST {url}/chat/completions`) with tool
  calling (`tools` of type function, `tool_calls` in the reply, `role: tool` messages for results).
  vLLM, Ollama, llama.cpp's server, LiteLLM and OpenRouter speak it too.
- `anthropic`: the Anthropic Messages API (`POST {url}/v1/messages`): `tool_use` blocks in the
  reply, `tool_result` blocks in the next user message.

Messages are kept in a neutral form (see apps.gateway.models.AgentStep) and translated per call.
Each call has a deadline (`deadline`, GATEWAY_MODEL_DEADLINE_SECONDS, by default the time-out): it
ends by then however slowly the API sends its answer (apps.gateway.agent.deadline), and fails as a
time-out does. `timeout` (GATEWAY_MODEL_TIMEOUT_SECONDS) bounds each network operation.
Prices are configuration (GATEWAY_MODEL_PRICES, USD per million tokens): `max_cost` bounds a call
before it is made (the input can be no more tokens than its bytes, plus a margin for the
protocol's own framing; the output no more than `max_tokens`) and `cost` prices what was used.
"""

from __future__ import annotations

import base64
import json
import math
import os
import re
import time
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx
from django.conf import settings

from apps.core import json_input, metrics, outbound
from apps.core.spending import ModelRate
from apps.gateway.agent.deadline import deadline as call_deadline
from apps.gateway.agent.deadline import deadline_client

# Tokens a provider may add around what we send (role markers, the tool-use preamble).
FRAMING_TOKENS = 1024
TRANSIENT_STATUSES = {408, 409, 425, 429, 500, 502, 503, 504, 529}
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# The conversation as the agent keeps it: {"role": ..., "content": ...} and tool calls and results.
Messages = list[dict[str, Any]]


class ModelError(Exception):
    """A model call that did not give an answer. `transient`: worth trying again."""

    # Its text is our own wording (a status, a time-out), never the API's answer: logs show it.
    loggable_text = True

    def __init__(
        self, message: str, *, transient: bool, retry_after: float | None = None, timed_out: bool = False
    ) -> None:
        super().__init__(message)
        self.transient = transient
        self.retry_after = retry_after
        self.timed_out = timed_out


class PriceMissing(Exception):
    pass


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def read_tokens(self) -> int:
        """What the model read, cache reads and writes included: the input tokens the API-keys
        ledger counts for the call (`budget_settle`), with `output_tokens`."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    # None when the model sent arguments that are not a JSON object, or JSON that is refused.
    arguments: dict[str, Any] | None
    raw_arguments: str = ""
    # Why the arguments were refused (apps.core.json_input: too deep, NUL, a number out of range).
    refused: str = ""


@dataclass(frozen=True)
class ModelReply:
    text: str
    tool_calls: list[ToolCall]
    usage: Usage
    # "end", "tool_calls" or "max_tokens"
    stop: str


@dataclass(frozen=True)
class Transcription:
    text: str
    language: str
    seconds: float | None
    # None when the API reported no tokens (whisper-1 reports the audio's duration instead).
    usage: Usage | None


@dataclass(frozen=True)
class Drawn:
    data: bytes
    revised_prompt: str
    # None when the API reported no tokens.
    usage: Usage | None


@dataclass(frozen=True)
class ToolDef:
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class Price:
    """USD per million tokens, which is micro-dollars per token."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal

    @classmethod
    def parse(cls, raw: Any) -> Price:
        if not isinstance(raw, dict) or "input" not in raw or "output" not in raw:
            raise PriceMissing("a price needs `input` and `output` (USD per million tokens)")
        values = {name: Decimal(str(raw[name])) for name in ("input", "output") if name in raw}
        cache_read = Decimal(str(raw.get("cache_read", raw["input"])))
        cache_write = Decimal(str(raw.get("cache_write", raw["input"])))
        if any(value < 0 for value in (*values.values(), cache_read, cache_write)):
            raise PriceMissing("prices cannot be negative")
        return cls(values["input"], values["output"], cache_read, cache_write)


def _micro(amount: Decimal) -> int:
    return math.ceil(amount)


@dataclass
class Backend:
    """What every backend shares: configuration, pricing, the HTTP call and its failures."""

    url: str
    model: str
    api_key: str = ""
    timeout: float = 60.0
    # The whole of one call: connect, send, the entire answer.
    deadline: float = 60.0
    price: Price | None = None
    name: str = ""
    _clients: dict[int, httpx.Client] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        return f"{self.name}:{self.model}"

    # -- money --

    def max_cost(self, request_bytes: int, max_tokens: int) -> int:
        """The most a call can cost, in micro-dollars: every byte sent taken for a token (no
        tokenizer makes more tokens than bytes), plus framing, at the dearest input price."""
        price = self._price()
        dearest_input = max(price.input, price.cache_write, price.cache_read)
        return _micro(dearest_input * (request_bytes + FRAMING_TOKENS) + price.output * max_tokens)

    def cost(self, usage: Usage) -> int:
        price = self._price()
        return _micro(
            price.input * usage.input_tokens
            + price.output * usage.output_tokens
            + price.cache_read * usage.cache_read_tokens
            + price.cache_write * usage.cache_write_tokens
        )

    def _price(self) -> Price:
        if self.price is None:
            raise PriceMissing(f"no price is configured for model {self.model!r} (GATEWAY_MODEL_PRICES)")
        return self.price

    # -- HTTP --

    def _client(self) -> httpx.Client:
        client = self._clients.get(os.getpid())
        if client is None:
            client = deadline_client(self.timeout)
            self._clients[os.getpid()] = client
        return client

    def _post(
        self, path: str, body: bytes, headers: dict[str, str], within: float | None = None
    ) -> dict[str, Any]:
        """One call of the API, ended by its deadline (or by `within` seconds from now, when that
        is sooner), counted: `atrium_model_calls_total` by backend and outcome."""
        started = time.perf_counter()
        outcome = "error"
        seconds = self.deadline if within is None else min(self.deadline, within)
        try:
            answer = self._post_once(path, body, headers, seconds)
            outcome = "ok"
            return answer
        except ModelError as error:
            outcome = "timeout" if error.timed_out else "error"
            raise
        finally:
            metrics.model_call(
                backend=self.name or "unknown", outcome=outcome, seconds=time.perf_counter() - started
            )

    def _post_once(self, path: str, body: bytes, headers: dict[str, str], seconds: float) -> dict[str, Any]:
        url = self.url.rstrip("/") + path
        with call_deadline(seconds) as call:
            outbound.reached("model API")
            try:
                response = self._client().post(
                    url, content=body, headers={"Content-Type": "application/json", **headers}
                )
            except httpx.TimeoutException as error:
                # The same failure whichever limit ran out: the answer never came (nothing is
                # settled for it), and it is worth trying again.
                if call.timed_out():
                    message = (
                        f"the model API did not finish answering within the call's deadline ({seconds:.3g} s)"
                    )
                else:
                    message = f"the model API did not answer in time ({type(error).__name__})"
                raise ModelError(message, transient=True, timed_out=True) from error
            except httpx.HTTPError as error:
                raise ModelError(
                    f"the model API could not be reached ({type(error).__name__})", transient=True
                ) from error
        if response.status_code >= 400:
            retry_after = _retry_after(response.headers.get("retry-after"))
            raise ModelError(
                f"the model API answered {response.status_code}",
                transient=response.status_code in TRANSIENT_STATUSES,
                retry_after=retry_after,
            )
        # Read like any JSON from outside (apps.core.json_input): a model's answer is not to be
        # trusted more than a client's request, and a nesting thousands deep, a NUL or a lone
        # surrogate would otherwise fail later, in the interpreter or in PostgreSQL.
        try:
            answer = json_input.loads(response.content)
        except json_input.JsonRefused as refused:
            if refused.syntax:
                raise ModelError(
                    "the model API answered something that is not JSON", transient=True
                ) from None
            raise ModelError(
                f"the model API answered JSON that cannot be kept ({refused.message})", transient=True
            ) from None
        if not isinstance(answer, dict):
            raise ModelError("the model API answered something that is not a JSON object", transient=True)
        return answer

    # -- the interface --

    def request(
        self, *, system: str, messages: Messages, tools: list[ToolDef], max_tokens: int, final: bool
    ) -> bytes:
        """The request body of a call (what `max_cost` is computed from)."""
        raise NotImplementedError

    def complete(self, body: bytes, *, within: float | None = None) -> ModelReply:
        """One call. `within`: seconds it must end in, when less than the deadline."""
        raise NotImplementedError

    def vision_request(self, *, question: str, image: bytes, mime_type: str, max_tokens: int) -> bytes:
        """The request body of a question about one image (answered by `complete`)."""
        raise NotImplementedError

    def transcription_request(
        self, *, audio: bytes, filename: str, mime_type: str, language: str, prompt: str
    ) -> tuple[bytes, str]:
        """The multipart body of a transcription and its Content-Type (answered by `transcribe`);
        ModelError when the protocol has none."""
        raise ModelError(
            f"the {self.name or 'configured'} model API does not transcribe audio", transient=False
        )

    def transcribe(self, body: bytes, content_type: str, *, within: float | None = None) -> Transcription:
        raise ModelError(
            f"the {self.name or 'configured'} model API does not transcribe audio", transient=False
        )

    def image_request(self, *, prompt: str, size: str) -> bytes:
        """The request body of an image made from words (answered by `draw`); ModelError when the
        protocol has none."""
        raise ModelError(f"the {self.name or 'configured'} model API does not make images", transient=False)

    def draw(self, body: bytes, *, within: float | None = None) -> Drawn:
        raise ModelError(f"the {self.name or 'configured'} model API does not make images", transient=False)


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


def _json(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


def _arguments(raw: Any) -> tuple[dict[str, Any] | None, str, str]:
    """A tool call's arguments as an object (None when they are not one), their text, and why
    they were refused ("" when they were not): the text a chat-completions model writes is read
    with the doors' reader (apps.core.json_input); a Messages API's object was read with the
    answer it came in."""
    if isinstance(raw, dict):
        return raw, json.dumps(raw), ""
    if isinstance(raw, str):
        try:
            parsed = json_input.loads(raw) if raw.strip() else {}
        except json_input.JsonRefused as refused:
            return None, raw, "" if refused.syntax else refused.message
        return (parsed, raw, "") if isinstance(parsed, dict) else (None, raw, "")
    return None, str(raw), ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


class ChatCompletionsBackend(Backend):
    """An OpenAI-compatible chat-completions API with tool calling."""

    def request(
        self, *, system: str, messages: Messages, tools: list[ToolDef], max_tokens: int, final: bool
    ) -> bytes:
        wire: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for message in messages:
            role = message["role"]
            if role == "user":
                wire.append({"role": "user", "content": message["content"]})
            elif role == "assistant":
                entry: dict[str, Any] = {"role": "assistant", "content": message.get("content") or None}
                if message.get("tool_calls"):
                    entry["tool_calls"] = [
                        {
                            "id": call["id"],
                            "type": "function",
                            "function": {
                                "name": call["name"],
                                # Arguments that were not a JSON object are sent back as {}
                                # (some servers refuse the request otherwise); the tool's result
                                # tells the model what was wrong.
                                "arguments": json.dumps(call.get("arguments") or {}),
                            },
                        }
                        for call in message["tool_calls"]
                    ]
                wire.append(entry)
            elif role == "tool":
                wire.append(
                    {"role": "tool", "tool_call_id": message["tool_call_id"], "content": message["content"]}
                )
        body: dict[str, Any] = {"model": self.model, "messages": wire, "max_tokens": max_tokens}
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
                }
                for t in tools
            ]
            body["tool_choice"] = "none" if final else "auto"
        return _json(body)

    def complete(self, body: bytes, *, within: float | None = None) -> ModelReply:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        answer = self._post("/chat/completions", body, headers, within)
        choices = answer.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ModelError("the model API's answer has no choices", transient=True)
        message = choices[0].get("message") or {}
        calls = []
        for index, call in enumerate(message.get("tool_calls") or []):
            function = (call or {}).get("function") or {}
            arguments, raw, refused = _arguments(function.get("arguments"))
            calls.append(
                ToolCall(
                    id=str(call.get("id") or f"call_{index}"),
                    name=str(function.get("name") or ""),
                    arguments=arguments,
                    raw_arguments=raw,
                    refused=refused,
                )
            )
        usage = answer.get("usage") or {}
        finish = choices[0].get("finish_reason")
        content = message.get("content")
        return ModelReply(
            text=content.strip() if isinstance(content, str) else "",
            tool_calls=calls,
            usage=Usage(
                input_tokens=_int(usage.get("prompt_tokens")),
                output_tokens=_int(usage.get("completion_tokens")),
            ),
            stop="tool_calls" if calls else ("max_tokens" if finish == "length" else "end"),
        )

    def vision_request(self, *, question: str, image: bytes, mime_type: str, max_tokens: int) -> bytes:
        data_uri = f"data:{mime_type};base64,{base64.b64encode(image).decode()}"
        content = [
            {"type": "text", "text": question},
            {"type": "image_url", "image_url": {"url": data_uri}},
        ]
        return _json(
            {
                "model": self.model,
                "messages": [{"role": "user", "content": content}],
                "max_tokens": max_tokens,
            }
        )

    def transcription_request(
        self, *, audio: bytes, filename: str, mime_type: str, language: str, prompt: str
    ) -> tuple[bytes, str]:
        fields = {"model": self.model, "response_format": "json"}
        if language:
            fields["language"] = language
        if prompt:
            fields["prompt"] = prompt
        return _multipart(fields, file=("file", filename, mime_type, audio))

    def transcribe(self, body: bytes, content_type: str, *, within: float | None = None) -> Transcription:
        headers = {"Content-Type": content_type}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        answer = self._post("/audio/transcriptions", body, headers, within)
        text = answer.get("text")
        if not isinstance(text, str):
            raise ModelError("the model API's transcription has no text", transient=True)
        reported = answer.get("usage")
        usage: dict[str, Any] = reported if isinstance(reported, dict) else {}
        tokens = None
        if usage.get("type") == "tokens" or "input_tokens" in usage:
            tokens = Usage(
                input_tokens=_int(usage.get("input_tokens")), output_tokens=_int(usage.get("output_tokens"))
            )
        duration = answer.get("duration", usage.get("seconds"))
        seconds = float(duration) if isinstance(duration, int | float) and math.isfinite(duration) else None
        language = answer.get("language")
        return Transcription(
            text=text.strip(),
            language=language[:40] if isinstance(language, str) else "",
            seconds=seconds,
            usage=tokens,
        )

    def image_request(self, *, prompt: str, size: str) -> bytes:
        return _json(
            {"model": self.model, "prompt": prompt, "n": 1, "size": size, "response_format": "b64_json"}
        )

    def draw(self, body: bytes, *, within: float | None = None) -> Drawn:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        answer = self._post("/images/generations", body, headers, within)
        data = answer.get("data")
        first = data[0] if isinstance(data, list) and data and isinstance(data[0], dict) else {}
        encoded = first.get("b64_json")
        if not isinstance(encoded, str) or not encoded:
            raise ModelError("the model API's answer has no image", transient=True)
        try:
            image = base64.b64decode(encoded, validate=True)
        except ValueError:
            raise ModelError("the model API's image is not base64", transient=True) from None
        reported = answer.get("usage")
        usage = (
            Usage(
                input_tokens=_int(reported.get("input_tokens")),
                output_tokens=_int(reported.get("output_tokens")),
            )
            if isinstance(reported, dict) and ("input_tokens" in reported or "output_tokens" in reported)
            else None
        )
        revised = first.get("revised_prompt")
        return Drawn(
            data=image, revised_prompt=revised[:2000] if isinstance(revised, str) else "", usage=usage
        )


class MessagesBackend(Backend):
    """The Anthropic Messages API."""

    VERSION = "2023-06-01"

    def request(
        self, *, system: str, messages: Messages, tools: list[ToolDef], max_tokens: int, final: bool
    ) -> bytes:
        wire: list[dict[str, Any]] = []

        def add(role: str, blocks: list[dict[str, Any]]) -> None:
            # Consecutive messages of one role are merged: the API wants them alternating.
            if wire and wire[-1]["role"] == role:
                wire[-1]["content"].extend(blocks)
            else:
                wire.append({"role": role, "content": blocks})

        for message in messages:
            role = message["role"]
            if role == "user":
                add("user", [{"type": "text", "text": message["content"]}])
            elif role == "assistant":
                blocks: list[dict[str, Any]] = []
                if message.get("content"):
                    blocks.append({"type": "text", "text": message["content"]})
                for call in message.get("tool_calls") or []:
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": call["id"],
                            "name": call["name"],
                            "input": call.get("arguments") or {},
                        }
                    )
                add("assistant", blocks or [{"type": "text", "text": "…"}])
            elif role == "tool":
                add(
                    "user",
                    [
                        {
                            "type": "tool_result",
                            "tool_use_id": message["tool_call_id"],
                            "content": message["content"],
                            "is_error": bool(message.get("is_error")),
                        }
                    ],
                )
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "system": system,
            "messages": wire,
        }
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools
            ]
            body["tool_choice"] = {"type": "none"} if final else {"type": "auto"}
        return _json(body)

    def vision_request(self, *, question: str, image: bytes, mime_type: str, max_tokens: int) -> bytes:
        source = {"type": "base64", "media_type": mime_type, "data": base64.b64encode(image).decode()}
        content = [{"type": "image", "source": source}, {"type": "text", "text": question}]
        return _json(
            {
                "model": self.model,
                "max_tokens": max_tokens,
                "messages": [{"role": "user", "content": content}],
            }
        )

    def complete(self, body: bytes, *, within: float | None = None) -> ModelReply:
        headers = {"anthropic-version": self.VERSION}
        if self.api_key:
            headers["x-api-key"] = self.api_key
        answer = self._post("/v1/messages", body, headers, within)
        content = answer.get("content")
        if not isinstance(content, list):
            raise ModelError("the model API's answer has no content", transient=True)
        texts, calls = [], []
        for block in content:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "tool_use":
                arguments, raw, refused = _arguments(block.get("input"))
                calls.append(
                    ToolCall(
                        id=str(block.get("id") or ""),
                        name=str(block.get("name") or ""),
                        arguments=arguments,
                        raw_arguments=raw,
                        refused=refused,
                    )
                )
        usage = answer.get("usage") or {}
        stop = answer.get("stop_reason")
        return ModelReply(
            text="\n".join(texts).strip(),
            tool_calls=calls,
            usage=Usage(
                input_tokens=_int(usage.get("input_tokens")),
                output_tokens=_int(usage.get("output_tokens")),
                cache_read_tokens=_int(usage.get("cache_read_input_tokens")),
                cache_write_tokens=_int(usage.get("cache_creation_input_tokens")),
            ),
            stop="tool_calls" if calls else ("max_tokens" if stop == "max_tokens" else "end"),
        )


def _multipart(fields: dict[str, str], *, file: tuple[str, str, str, bytes]) -> tuple[bytes, str]:
    """A multipart/form-data body (RFC 7578) of text fields and one file, and its Content-Type."""
    boundary = f"atrium-{uuid.uuid4().hex}"
    parts: list[bytes] = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        )
    field_name, filename, mime_type, data = file
    # The name as a header parameter: quotes, line breaks and non-ASCII left out.
    safe = "".join(c for c in filename if c.isascii() and c.isprintable() and c not in '"\\') or "upload"
    parts.append(
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{field_name}"; filename="{safe}"\r\n'
            f"Content-Type: {mime_type}\r\n\r\n"
        ).encode()
        + data
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


BACKENDS: dict[str, type[Backend]] = {"anthropic": MessagesBackend, "openai": ChatCompletionsBackend}

_configured: dict[tuple[Any, ...], Backend | None] = {}


def configured_backend() -> Backend | None:
    """The backend the settings choose, or None for the built-in agent. Raises ValueError for a
    configuration that cannot work (the system check reports the same at start-up)."""
    name = (settings.GATEWAY_MODEL_BACKEND or "").strip().lower()
    if not name:
        return None
    prices = settings.GATEWAY_MODEL_PRICES or {}
    signature = (
        name,
        settings.GATEWAY_MODEL_URL,
        settings.GATEWAY_MODEL_NAME,
        settings.GATEWAY_MODEL_API_KEY,
        settings.GATEWAY_MODEL_TIMEOUT_SECONDS,
        settings.GATEWAY_MODEL_DEADLINE_SECONDS,
        json.dumps(prices, sort_keys=True, default=str),
        # What else configuration_problems() reads.
        settings.GATEWAY_MODEL_MAX_TOKENS,
        settings.GATEWAY_MODEL_RETRIES,
        settings.GATEWAY_MODEL_RETRY_BASE_SECONDS,
        settings.GATEWAY_LEASE_MARGIN_SECONDS,
        settings.GATEWAY_CONVERSATION_TTL_HOURS,
    )
    if signature in _configured:
        return _configured[signature]
    problems = configuration_problems()
    if problems:
        raise ValueError("; ".join(problems))
    backend = BACKENDS[name](
        url=settings.GATEWAY_MODEL_URL,
        model=settings.GATEWAY_MODEL_NAME,
        api_key=settings.GATEWAY_MODEL_API_KEY,
        timeout=settings.GATEWAY_MODEL_TIMEOUT_SECONDS,
        deadline=model_deadline(),
        price=Price.parse(prices[settings.GATEWAY_MODEL_NAME]),
        name=name,
    )
    _configured.clear()
    _configured[signature] = backend
    return backend


def model_rates() -> list[ModelRate]:
    """The prices the meter charges model calls with (GATEWAY_MODEL_PRICES, read as `configured_backend`
    reads them), the model in use first; a price that does not parse is left out (no call is made
    at it: the start-up check reports the one in use)."""
    prices = settings.GATEWAY_MODEL_PRICES or {}
    if not isinstance(prices, dict):
        return []
    in_use = settings.GATEWAY_MODEL_NAME if (settings.GATEWAY_MODEL_BACKEND or "").strip() else None
    rates = []
    for model, raw in prices.items():
        try:
            price = Price.parse(raw)
        except (PriceMissing, ArithmeticError, ValueError):
            continue
        rates.append(
            ModelRate(
                model=str(model),
                input=price.input,
                output=price.output,
                cache_read=price.cache_read,
                cache_write=price.cache_write,
                in_use=model == in_use,
            )
        )
    return sorted(rates, key=lambda rate: (not rate.in_use, rate.model))


def model_deadline() -> float:
    """How long one model call may take in all: GATEWAY_MODEL_DEADLINE_SECONDS, or the time-out
    (GATEWAY_MODEL_TIMEOUT_SECONDS) when that is 0."""
    return settings.GATEWAY_MODEL_DEADLINE_SECONDS or settings.GATEWAY_MODEL_TIMEOUT_SECONDS


def _positive(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0


def timing_problems() -> list[str]:
    """What makes a model call's time limits contradict the lease its worker holds meanwhile."""
    from apps.gateway.agent.model import model_call_allowance

    problems = []
    if not _positive(settings.GATEWAY_MODEL_TIMEOUT_SECONDS):
        problems.append("GATEWAY_MODEL_TIMEOUT_SECONDS must be a number of seconds above 0")
    deadline = settings.GATEWAY_MODEL_DEADLINE_SECONDS
    if deadline != 0 and not _positive(deadline):
        problems.append(
            "GATEWAY_MODEL_DEADLINE_SECONDS must be a number of seconds above 0 (0: the time-out)"
        )
    if not isinstance(settings.GATEWAY_MODEL_RETRIES, int) or settings.GATEWAY_MODEL_RETRIES < 0:
        problems.append("GATEWAY_MODEL_RETRIES must be 0 or more")
    if not isinstance(settings.GATEWAY_MODEL_RETRY_BASE_SECONDS, int | float) or not (
        settings.GATEWAY_MODEL_RETRY_BASE_SECONDS >= 0
    ):
        problems.append("GATEWAY_MODEL_RETRY_BASE_SECONDS must be 0 or more")
    margin = settings.GATEWAY_LEASE_MARGIN_SECONDS
    if not isinstance(margin, int | float) or not margin >= 1:
        problems.append(
            "GATEWAY_LEASE_MARGIN_SECONDS must be at least 1: a model call may last all the time its "
            "worker's lease allows it, and the worker then needs the margin to record the answer"
        )
    if problems:
        return problems
    lease = model_call_allowance(model_deadline()) + margin
    lifetime = settings.GATEWAY_CONVERSATION_TTL_HOURS * 3600
    if lease >= lifetime:
        problems.append(
            f"a model call's lease ({lease:.0f} s: its deadline times {settings.GATEWAY_MODEL_RETRIES + 1} "
            f"attempts, the waits between them and the margin) must be shorter than a conversation's "
            f"life ({lifetime} s): lower GATEWAY_MODEL_DEADLINE_SECONDS or GATEWAY_MODEL_RETRIES"
        )
    return problems


def configuration_problems() -> list[str]:
    """What is wrong with the model backend's settings (empty: nothing, or no backend)."""
    name = (settings.GATEWAY_MODEL_BACKEND or "").strip().lower()
    if not name:
        return []
    problems = []
    if name not in BACKENDS:
        problems.append(
            f"GATEWAY_MODEL_BACKEND is {name!r}; it is one of {', '.join(sorted(BACKENDS))} or empty"
        )
    if not settings.GATEWAY_MODEL_URL.startswith(("http://", "https://")):
        problems.append("GATEWAY_MODEL_URL must be the API's http(s) base URL")
    if not settings.GATEWAY_MODEL_NAME:
        problems.append("GATEWAY_MODEL_NAME must name the model")
    prices = settings.GATEWAY_MODEL_PRICES or {}
    if not isinstance(prices, dict) or settings.GATEWAY_MODEL_NAME not in prices:
        problems.append(
            f"GATEWAY_MODEL_PRICES has no price for {settings.GATEWAY_MODEL_NAME!r}: every model call is "
            "metered against the API key's budget, so a model without a price is not used"
        )
    else:
        try:
            Price.parse(prices[settings.GATEWAY_MODEL_NAME])
        except (PriceMissing, ArithmeticError, ValueError) as error:
            problems.append(f"GATEWAY_MODEL_PRICES[{settings.GATEWAY_MODEL_NAME!r}]: {error}")
    for setting in ("GATEWAY_MODEL_VISION_NAME", "GATEWAY_MODEL_TRANSCRIPTION_NAME"):
        other = getattr(settings, setting, "")
        if other and isinstance(prices, dict) and other not in prices:
            problems.append(
                f"GATEWAY_MODEL_PRICES has no price for {other!r} ({setting}): its calls are metered too"
            )
    if settings.GATEWAY_MODEL_MAX_TOKENS < 16:
        problems.append("GATEWAY_MODEL_MAX_TOKENS must be at least 16")
    problems.extend(timing_problems())
    return problems
