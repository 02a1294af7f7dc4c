"""What an area may ask of the service's model backends (speech to text, a look at an image, text
written or rewritten, an image made from words)
without importing the door that configures them: the message gateway fills this interface from
its `AppConfig.ready()` (apps.gateway.agent.media), like the API keys fill `apps.core.spending`.

    from apps.core import modelcalls
    heard = modelcalls.provider().transcribe(api_key_id=..., data=..., filename=..., mime_type=...)
    seen = modelcalls.provider().look_at(api_key_id=..., data=..., mime_type=..., question=...)
    written = modelcalls.provider().write(api_key_id=..., system=..., text=..., max_tokens=..., purpose=...)
    drawn = modelcalls.provider().draw(api_key_id=..., prompt=..., size=..., purpose=...)

Every call is metered like the gateway's own: the most it can cost is reserved against the API
key's budget before it is made, and what the API reported it used is settled after (a call that
failed is released). The budget's refusals are the API keys' own errors (BUDGET_EXCEEDED,
KEY_REVOKED). The failures the area words itself are the exceptions below.
"""

from dataclasses import dataclass
from typing import Any, Protocol


class ModelCallError(Exception):
    """A model call the provider could not make (the area answers it in its own words)."""


class NotConfigured(ModelCallError):
    """No model for this capability is configured; `problem` says what is missing."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


class NoApiKey(ModelCallError):
    """The caller has no API key to meter the call to (an OAuth connection, a page)."""


class CallFailed(ModelCallError):
    """The model API gave no answer; `problem` is our wording of why (a status, a time-out)."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


@dataclass(frozen=True)
class Transcript:
    text: str
    # What the API said the language was ("" when it did not say).
    language: str
    # The audio's length in seconds, when the API said.
    seconds: float | None
    model: str
    cost_micro_usd: int


@dataclass(frozen=True)
class Look:
    """The model's answer about an image."""

    text: str
    model: str
    cost_micro_usd: int
    # The answer was cut at the most tokens it was allowed.
    cut: bool


@dataclass(frozen=True)
class Writing:
    """The model's text for an instruction (a translation, a polished draft)."""

    text: str
    model: str
    cost_micro_usd: int
    cut: bool


@dataclass(frozen=True)
class Drawing:
    """An image the model made: its bytes as the API sent them (PNG unless it said otherwise)."""

    data: bytes
    model: str
    cost_micro_usd: int
    # The prompt as the model rewrote it, when it said ("" otherwise).
    revised_prompt: str


class Models(Protocol):
    def transcribe(
        self,
        *,
        api_key_id: int | None,
        data: bytes,
        filename: str,
        mime_type: str,
        language: str = "",
        prompt: str = "",
    ) -> Transcript:
        """The speech in the audio as text (an OpenAI-compatible `/audio/transcriptions`)."""
        ...

    def look_at(
        self, *, api_key_id: int | None, data: bytes, mime_type: str, question: str, max_tokens: int
    ) -> Look:
        """The model's answer to `question` about the image (a vision chat call)."""
        ...

    def write(
        self, *, api_key_id: int | None, system: str, text: str, max_tokens: int, purpose: str
    ) -> Writing:
        """The model's answer to `text` under the instructions `system` (one chat call, no tools)."""
        ...

    def draw(self, *, api_key_id: int | None, prompt: str, size: str, purpose: str) -> Drawing:
        """An image made from `prompt` (an OpenAI-compatible `/images/generations`), `size` "WxH"."""
        ...


_provider: Models | None = None


def register(models: Models | None) -> None:
    global _provider
    _provider = models


def provider() -> Models:
    """The registered provider; NotConfigured when none is (the door is not installed)."""
    if _provider is None:
        raise NotConfigured("no model backend is installed in this service")
    return _provider


# --- an agent's turns, metered by the area that runs them ----------------------------------------
#
# Agents an area runs (Teams' members) call the same model backends through `turns()`: the area
# asks what a call may cost at most (`prepare`), reserves that against a budget of its own, makes
# the call (`answer`) and settles what it cost (reserve-then-settle, as the gateway meters keys).
# The tools offered are catalogue tools by name; the door shows them to the model as its own
# agent does. Messages are the gateway's neutral form: {"role": "user"|"assistant"|"tool", ...},
# an assistant's `tool_calls` as [{"id", "name", "arguments"}], a tool's result as
# {"role": "tool", "tool_call_id", "name", "content"}.


@dataclass(frozen=True)
class Prepared:
    """A model call ready to be made: its request, the model and the most it may cost."""

    body: bytes
    model: str
    max_cost_micro_usd: int


@dataclass(frozen=True)
class Called:
    """A tool the model asked for; `arguments` None when they were not a JSON object."""

    id: str
    name: str
    arguments: dict[str, Any] | None
    refused: str = ""


@dataclass(frozen=True)
class Answered:
    text: str
    calls: list[Called]
    cost_micro_usd: int
    input_tokens: int
    output_tokens: int


class Turns(Protocol):
    def prepare(
        self, *, model: str, system: str, messages: list[dict[str, Any]], tools: list[str], max_tokens: int
    ) -> Prepared:
        """The request of one call; NotConfigured when no backend (or no price for `model`) is set."""
        ...

    def answer(self, prepared: Prepared) -> Answered:
        """Makes the call (with the door's retries); CallFailed when no answer came."""
        ...


_turns: Turns | None = None


def register_turns(turns: Turns | None) -> None:
    global _turns
    _turns = turns


def turns() -> Turns:
    """The registered agent turns; NotConfigured when none is (the door is not installed)."""
    if _turns is None:
        raise NotConfigured("no model backend is installed in this service")
    return _turns
