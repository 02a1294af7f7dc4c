"""What a model proposes for marketing (generateSequenceStep, generateMarketingStrategy), through
the service's model backends (apps.core.modelcalls, which the message gateway fills; each call
metered against the caller's API key like the gateway's own). The model answers one JSON object;
what it proposes is then checked like what a person gives."""

import json
from dataclasses import dataclass
from typing import Any

from apps.core import modelcalls
from apps.marketing import errors


@dataclass(frozen=True)
class Proposed:
    data: dict[str, Any]
    model: str
    cost_micro_usd: int


def model_failure(error: modelcalls.ModelCallError, tool: str) -> Exception:
    """The area's failure for a model call that failed (every Marketing tool that asks a model)."""
    if isinstance(error, modelcalls.NotConfigured):
        return errors.MarketingModelNotConfigured(tool=tool, problem=error.problem)
    if isinstance(error, modelcalls.NoApiKey):
        return errors.MarketingModelNeedsApiKey(tool=tool)
    assert isinstance(error, modelcalls.CallFailed)
    return errors.MarketingModelCallFailed(tool=tool, problem=error.problem)


def ask(*, api_key_id: int | None, tool: str, system: str, given: dict[str, Any]) -> Proposed:
    """The model's JSON object for `given` (sent as JSON), or the tool's clear error."""
    try:
        answer = modelcalls.provider().write(
            api_key_id=api_key_id,
            system=system + " Answer with one JSON object and nothing else.",
            text=json.dumps(given, ensure_ascii=False, default=str),
            max_tokens=4000,
            purpose=tool,
        )
    except modelcalls.ModelCallError as error:
        raise model_failure(error, tool) from None
    if answer.cut:
        raise errors.MarketingModelCallFailed(
            tool=tool, problem="its answer was cut at the most tokens allowed"
        )
    body = answer.text.strip()
    start, end = body.find("{"), body.rfind("}")
    try:
        data = json.loads(body[start : end + 1]) if start >= 0 and end > start else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise errors.MarketingModelCallFailed(
            tool=tool, problem="its answer was not the JSON object asked for"
        )
    return Proposed(data, answer.model, answer.cost_micro_usd)
