"""Agent turns for the areas that run agents of their own (apps.core.modelcalls.turns): Teams'
members. The request is the configured backend's (OpenAI-compatible chat completions or the
Anthropic Messages API), the tools shown as this door's agent shows them (retrieval.tool_def),
and the call made with the agent's retries and deadline (ModelAgent._call_model). Metering is the
caller's: `prepare` says the most the call may cost, `answer` what it did cost."""

import logging
from typing import Any

from apps.catalogue import registry
from apps.core import modelcalls
from apps.gateway.agent import retrieval
from apps.gateway.agent.backends import ModelError, PriceMissing
from apps.gateway.agent.media import _backend
from apps.gateway.agent.model import ModelAgent

logger = logging.getLogger(__name__)


class GatewayTurns:
    def prepare(
        self, *, model: str, system: str, messages: list[dict[str, Any]], tools: list[str], max_tokens: int
    ) -> modelcalls.Prepared:
        backend = _backend(model)
        defs = [
            retrieval.tool_def(spec) for spec in (registry.get(name) for name in tools) if spec is not None
        ]
        body = backend.request(
            system=system, messages=messages, tools=defs, max_tokens=max_tokens, final=False
        )
        try:
            most = backend.max_cost(len(body), max_tokens)
        except PriceMissing as error:
            raise modelcalls.NotConfigured(str(error)) from None
        return modelcalls.Prepared(body=body, model=backend.model, max_cost_micro_usd=most)

    def answer(self, prepared: modelcalls.Prepared) -> modelcalls.Answered:
        backend = _backend(prepared.model)
        try:
            reply = ModelAgent(backend)._call_model(prepared.body)
        except ModelError as error:
            logger.warning("an agent turn's model call failed (%s)", error)
            raise modelcalls.CallFailed(str(error)) from None
        return modelcalls.Answered(
            text=reply.text,
            calls=[
                modelcalls.Called(id=call.id, name=call.name, arguments=call.arguments, refused=call.refused)
                for call in reply.tool_calls
            ],
            cost_micro_usd=backend.cost(reply.usage),
            input_tokens=reply.usage.read_tokens,
            output_tokens=reply.usage.output_tokens,
        )


def install() -> None:
    modelcalls.register_turns(GatewayTurns())
