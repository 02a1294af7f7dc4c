"""The service's agent with a model: the model reads the message, calls catalogue tools through
the same dispatcher as MCP (as the key's owner), and writes the reply.

Metering: before each model call, that call's most possible cost is reserved against the API
key's budget (`budget_reserve`, atomic under the key's row lock: concurrent conversations never
spend past the budget together); after it, the cost of the usage the API reported is settled
and added to the conversation in one transaction (`services.call_settle`: a worker killed between
the two would leave the key paying for a call its conversation does not show), or the reservation
released if the call failed. When what is left of the budget
cannot pay for a call even with a smaller `max_tokens`, the conversation fails with
BUDGET_EXCEEDED and says so.

Each model reply and each tool result is stored as a step as soon as it exists, so a run resumed
after its worker died continues from there and never repeats a tool whose effect was recorded.

Time: a model call with its retries is given `model_call_allowance()` (every attempt its whole
deadline, GATEWAY_MODEL_DEADLINE_SECONDS, and the back-off between attempts), and never runs
longer: each attempt ends by its deadline or by the end of the allowance, whichever is sooner,
and a wait the API asks for (Retry-After) that would not leave the remaining attempts their
deadlines is not waited for (the call fails instead). The worker's lease and the budget
reservation are extended by the allowance plus GATEWAY_LEASE_MARGIN_SECONDS before the call, so
the lease always outlasts it, with the margin left to record the answer.
"""

import json
import logging
import random
import time
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.apikeys import selectors as apikeys_selectors
from apps.apikeys import services as apikeys_services
from apps.apikeys.errors import BudgetExceeded, KeyRevoked
from apps.catalogue import registry
from apps.core.workspaces import current_workspace
from apps.gateway import errors, services
from apps.gateway.agent import retrieval
from apps.gateway.agent.backends import Backend, ModelError, ModelReply, model_deadline
from apps.gateway.agent.context import Run
from apps.gateway.agent.outcome import Finish

logger = logging.getLogger(__name__)

OFFERED_KEY = "gateway:offered"
# Below this many output tokens a call is not worth making: the budget is taken as spent.
MIN_OUTPUT_TOKENS = 64
MAX_RETRY_WAIT_SECONDS = 20.0
# The back-off after failed attempt n (from 1) is base x 3^(n-1), stretched or shrunk by up to
# this fraction, and at most MAX_RETRY_WAIT_SECONDS (as is a Retry-After).
RETRY_JITTER = 0.2


def _backoff(attempt: int, jitter: float = 1 + RETRY_JITTER) -> float:
    base = settings.GATEWAY_MODEL_RETRY_BASE_SECONDS * (3 ** (attempt - 1))
    return min(MAX_RETRY_WAIT_SECONDS, base * jitter)


def model_call_allowance(deadline: float | None = None) -> float:
    """The longest one model call may take, its retries included: every attempt its whole
    deadline, and the longest back-off before each retry. The lease a worker holds during a model
    call, and the reservation, last this long plus GATEWAY_LEASE_MARGIN_SECONDS."""
    deadline = model_deadline() if deadline is None else deadline
    retries = settings.GATEWAY_MODEL_RETRIES
    return deadline * (retries + 1) + sum(_backoff(attempt) for attempt in range(1, retries + 1))


def system_prompt(run: Run) -> str:
    workspace = current_workspace()
    brand = workspace.brand_name if workspace is not None else "the workspace"
    zone = getattr(workspace, "time_zone", "UTC") if workspace is not None else "UTC"
    conversation = run.conversation
    lines = [
        f"You are the assistant of {brand}, answering a message sent to its message gateway by a "
        "script or automation on behalf of a person of the workspace. You act as that person, with "
        "their permissions, only through the tools you are given; their results are the truth.",
        "Nobody can answer questions during this conversation: do what the message asks if it is "
        "clear and safe, otherwise say what is missing. Never invent records, ids or results.",
        "Tools marked GATED, HIGH RISK or DESTRUCTIVE need a person's confirmation, which cannot be "
        "given here: such calls are refused. If the request needs one, say so in your reply instead "
        "of trying again. A tool marked MANDATORY FIRST CALL must be called before the other tools "
        "of its area.",
        "Only a few tools are offered at first; searchTools finds the others you may use, and "
        "describeTool shows one tool's arguments.",
        "Finish with a short reply in plain English for the person: what you did or found, with ids.",
        f"Now: {timezone.now().isoformat(timespec='seconds')} (the workspace's time zone is {zone}).",
    ]
    hints = {name: value for name, value in conversation.context.items() if value}
    if hints:
        lines.append("The sender's hints: " + json.dumps(hints, ensure_ascii=False))
    if conversation.metadata:
        lines.append(
            "Extra data the sender attached (key-value, for you to use): "
            + json.dumps(conversation.metadata, ensure_ascii=False)
        )
    return "\n".join(lines)


def _resolved(text: str) -> Finish:
    return Finish.resolved(text.strip() or _("(The agent finished without writing a reply.)"))


class ModelAgent:
    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    # -- helpers --

    def _offered(self, run: Run) -> list[str]:
        offered = run.session.get(OFFERED_KEY)
        if not offered:
            offered = retrieval.rank(
                run.principal,
                message=run.message,
                context=run.conversation.context,
                limit=settings.GATEWAY_AGENT_OFFERED_TOOLS,
            )
            with services.locked(run.conversation.pk, run.token):
                run.session.set(OFFERED_KEY, offered)
        return list(offered)

    def _remember(self, run: Run, names: list[str]) -> None:
        offered = list(run.session.get(OFFERED_KEY) or [])
        added = [name for name in names if name not in offered and registry.get(name) is not None]
        if added:
            run.session.set(OFFERED_KEY, offered + added)

    def _tools(self, run: Run, offered: list[str]) -> list[Any]:
        from apps.catalogue.dispatch import may_use

        tools = []
        for name in offered:
            spec = registry.get(name)
            if spec is not None and may_use(run.principal, name):
                tools.append(retrieval.tool_def(spec))
        return tools

    def _call_model(self, body: bytes, ends: float | None = None) -> ModelReply:
        """The model's reply, trying again after a transient failure, all of it done by `ends`
        (time.monotonic(); by default the allowance from now): see the module's docstring."""
        deadline = self.backend.deadline
        if ends is None:
            ends = time.monotonic() + self._call_seconds()
        attempts = settings.GATEWAY_MODEL_RETRIES + 1
        for attempt in range(1, attempts + 1):
            left = ends - time.monotonic()
            if left <= 0:
                raise ModelError("the model call used all the time its lease allows", transient=False)
            try:
                return self.backend.complete(body, within=min(deadline, left))
            except ModelError as error:
                if not error.transient or attempt == attempts:
                    raise
                if error.retry_after is None:
                    jitter = random.uniform(1 - RETRY_JITTER, 1 + RETRY_JITTER)  # noqa: S311 (timing, not secrecy)
                    wait = _backoff(attempt, jitter)
                else:
                    wait = min(error.retry_after, MAX_RETRY_WAIT_SECONDS)
                # The attempts after this wait keep their whole deadline (they end by `ends` in
                # any case). A back-off is cut to fit, if need be (the allowance counts it, so only
                # by a moment); a Retry-After that does not fit is not waited for: the call fails
                # now, rather than try again early against an API that asked it to wait.
                room = ends - time.monotonic() - (attempts - attempt) * deadline
                if error.retry_after is not None and wait > room:
                    logger.info("model call failed (%s); its Retry-After (%.1f s) does not fit", error, wait)
                    raise
                wait = max(0.0, min(wait, room))
                logger.info("model call failed (%s); trying again in %.1f s", error, wait)
                time.sleep(wait)
        raise AssertionError("unreachable")

    def _sized(self, run: Run, request: Any) -> tuple[bytes, int, int] | None:
        """The request body, its reserved cost and max_tokens, shrunk to what the budget has left;
        None when not even a small call fits."""
        max_tokens = settings.GATEWAY_MODEL_MAX_TOKENS
        body = request(max_tokens)
        cost = self.backend.max_cost(len(body), max_tokens)
        key = run.conversation.key
        key.refresh_from_db(
            fields=["budget_usd_cents", "budget_period", "reserved_micro_usd", "spent_micro_usd"]
        )
        remaining = apikeys_selectors.budget_status(key=key).remaining_micro_usd
        if remaining is None or cost <= remaining:
            return body, cost, max_tokens
        price = self.backend.price
        input_cost = self.backend.max_cost(len(body), 0)
        if price is None or price.output <= 0 or remaining <= input_cost:
            return None
        shrunk = int((remaining - input_cost) / price.output)
        if shrunk < MIN_OUTPUT_TOKENS:
            return None
        body = request(shrunk)
        return body, self.backend.max_cost(len(body), shrunk), shrunk

    def _budget_spent(self, run: Run, error: BudgetExceeded | None = None) -> Finish:
        if error is None:
            key = run.conversation.key
            key.refresh_from_db()
            status = apikeys_selectors.budget_status(key=key)
            error = apikeys_services.budget_exceeded_error(key=key, status=status, now=timezone.now())
        message = _("The API key's budget is spent, so the agent stopped. %(detail)s") % {
            "detail": error.message
        }
        return Finish.failed(errors.BUDGET_EXCEEDED, message, reply=message)

    # -- the run --

    def run(self, run: Run) -> Finish:
        conversation = run.conversation
        system = system_prompt(run)
        user = {"role": "user", "content": run.message}
        limit = max(1, settings.GATEWAY_AGENT_MAX_MODEL_CALLS)
        while True:
            transcript = services.steps_of(conversation.pk)
            if (
                transcript
                and transcript[-1].get("role") == "assistant"
                and not transcript[-1].get("tool_calls")
            ):
                # Resumed after the reply was recorded (the run stopped before ending the
                # conversation): that reply is the answer; the model is not asked again.
                return _resolved(transcript[-1].get("content") or "")
            self._answer_pending(run, transcript)
            transcript = services.steps_of(conversation.pk)
            calls_made = sum(1 for message in transcript if message.get("role") == "assistant")
            if calls_made >= limit:
                return Finish.failed(
                    errors.TOO_MANY_STEPS,
                    _("The request needed more steps than the agent may take (%(limit)d model calls).")
                    % {"limit": limit},
                )
            final = calls_made == limit - 1
            offered = self._offered(run)
            tools = self._tools(run, offered)

            def request(
                max_tokens: int,
                tools: list[Any] = tools,
                transcript: list[Any] = transcript,
                final: bool = final,
            ) -> bytes:
                return self.backend.request(
                    system=system,
                    messages=[user, *transcript],
                    tools=tools,
                    max_tokens=max_tokens,
                    final=final,
                )

            sized = self._sized(run, request)
            if sized is None:
                return self._budget_spent(run)
            body, max_cost, _max_tokens = sized
            allowance = self._call_seconds()
            held = allowance + settings.GATEWAY_LEASE_MARGIN_SECONDS
            try:
                reservation = apikeys_services.budget_reserve(
                    key=conversation.key_id,
                    micro_usd=max_cost,
                    purpose=f"gateway conversation {conversation.uuid}",
                    ttl=timedelta(seconds=held),
                )
            except BudgetExceeded as error:
                return self._budget_spent(run, error)
            except KeyRevoked:
                return Finish.failed(errors.KEY_REVOKED, _("The API key was revoked, so the agent stopped."))
            # Taken before the lease is pushed ahead: the call ends at least the margin before it.
            ends = time.monotonic() + allowance
            try:
                services.lease_extend(
                    conversation_id=conversation.pk,
                    token=run.token,
                    seconds=held,
                    reservation_id=reservation.pk,
                )
            except services.LeaseLost:
                apikeys_services.budget_release(reservation=reservation)
                raise
            started = time.perf_counter()
            try:
                reply = self._call_model(body, ends)
            except ModelError as error:
                apikeys_services.budget_release(reservation=reservation)
                logger.warning(
                    "conversation %s: model call failed for good (%s, transient=%s)",
                    conversation.uuid,
                    error,
                    error.transient,
                )
                return Finish.failed(
                    errors.MODEL_UNAVAILABLE,
                    _(
                        "The agent's model is not available right now; nothing more was done. "
                        "Try again later."
                    ),
                )
            cost = self.backend.cost(reply.usage)
            services.call_settle(
                conversation_id=conversation.pk,
                reservation=reservation,
                micro_usd=cost,
                input_tokens=reply.usage.read_tokens,
                output_tokens=reply.usage.output_tokens,
            )
            logger.info(
                "conversation %s: model call %d took %.0f ms, cost %d µUSD, %d tool call(s)",
                conversation.uuid,
                calls_made + 1,
                (time.perf_counter() - started) * 1000,
                cost,
                len(reply.tool_calls),
            )
            with services.locked(conversation.pk, run.token) as locked:
                services.step_append(
                    conversation=locked,
                    message={
                        "role": "assistant",
                        "content": reply.text,
                        "tool_calls": [
                            {
                                "id": call.id,
                                "name": call.name,
                                "arguments": call.arguments,
                                "raw_arguments": call.raw_arguments,
                                "refused": call.refused,
                            }
                            for call in reply.tool_calls
                        ],
                    },
                )
            if not reply.tool_calls:
                return _resolved(reply.text)

    def _call_seconds(self) -> float:
        return model_call_allowance(self.backend.deadline)

    def _answer_pending(self, run: Run, transcript: list[dict[str, Any]]) -> None:
        """Runs the tool calls of the last model reply that have no result yet."""
        if not transcript or transcript[-1].get("role") not in ("assistant", "tool"):
            return
        answered: set[str | None] = set()
        last_assistant = None
        for message in transcript:
            if message.get("role") == "assistant":
                last_assistant = message
                answered = set()
            elif message.get("role") == "tool":
                answered.add(message.get("tool_call_id"))
        if last_assistant is None:
            return
        for call in last_assistant.get("tool_calls") or []:
            if call["id"] in answered:
                continue
            record = {"role": "tool", "tool_call_id": call["id"], "name": call["name"]}
            if call.get("arguments") is None:
                outcome_text = (
                    f"The arguments for {call['name']} were refused ({call['refused']}), so nothing "
                    "was done. Call it again with arguments without that."
                    if call.get("refused")
                    else f"The arguments for {call['name']} were not a JSON object, so nothing was "
                    "done. Call it again with a JSON object of arguments."
                )
                with services.locked(run.conversation.pk, run.token) as locked:
                    services.step_append(
                        conversation=locked, message={**record, "content": outcome_text, "is_error": True}
                    )
                continue
            outcome = run.call(call["name"], call["arguments"], record=record)
            if call["name"] in retrieval.DISCOVERY and not outcome.is_error:
                with services.locked(run.conversation.pk, run.token):
                    self._remember(run, retrieval.names_in(outcome.result))
