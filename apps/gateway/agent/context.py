"""What an agent run works with: the conversation it holds (by lease), the key owner's principal,
the conversation as the catalogue's session, and tool calls through the catalogue's dispatcher,
each committed together with the record of having made it."""

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import F

from apps.catalogue import registry
from apps.catalogue.dispatch import ToolContext, ToolNotFound, call_tool
from apps.catalogue.registry import CONFIRMATION_ARGUMENT
from apps.core import metrics, spending
from apps.core.credentials import Principal
from apps.gateway import services
from apps.gateway.models import Conversation

logger = logging.getLogger(__name__)

# A tool result longer than this is cut before it goes back to the model (input is paid for).
TOOL_RESULT_MAX_CHARS = 20_000
TOOL_LEASE_SECONDS = 60
_CONFIRMATION_TOKEN = re.compile(r"confirm_[A-Za-z0-9_-]+")


class ConversationSession:
    """The catalogue's SessionState, kept in the conversation's row. `set` writes at once, inside
    the transaction of the tool call that made it."""

    def __init__(self, conversation: Conversation) -> None:
        self.session_id = f"conversation:{conversation.uuid}"
        self._conversation_id = conversation.pk
        self.data: dict[str, Any] = dict(conversation.session_state or {})

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: Any) -> None:
        self.data[key] = value
        Conversation.objects.filter(pk=self._conversation_id).update(session_state=self.data)


@dataclass(frozen=True)
class ToolOutcome:
    name: str
    text: str
    is_error: bool
    result: dict[str, Any] | None = None
    # The tool is GATED / HIGH RISK / DESTRUCTIVE and was refused for want of a confirmation.
    refused_for_confirmation: bool = False


def refusal_text(name: str) -> str:
    spec = registry.get(name)
    markers = ", ".join(spec.markers.labels) if spec else "confirmation-gated"
    return (
        f"Refused: {name} is marked {markers} and runs only after a person confirms that exact call. "
        "The message gateway's agent cannot ask anyone, so nothing was done. Tell the user that this "
        "needs their confirmation: they can do it themselves in the workspace, or through an MCP client "
        "that asks them to confirm."
    )


@dataclass
class Run:
    conversation: Conversation
    token: str
    principal: Principal
    session: ConversationSession
    context: ToolContext = field(init=False)

    def __post_init__(self) -> None:
        self.context = ToolContext(
            principal=self.principal, session=self.session, request_id=None, door="gateway"
        )

    @classmethod
    def start(cls, conversation: Conversation, token: str) -> "Run":
        key = conversation.key
        principal = Principal(
            user=conversation.user,
            scheme="access_token",
            scopes=frozenset({"mcp"}),
            credential=f"pat:{conversation.token_id}" if conversation.token_id else "gateway",
            client=key.label,
            api_key_id=key.pk,
        )
        return cls(
            conversation=conversation,
            token=token,
            principal=principal,
            session=ConversationSession(conversation),
        )

    @property
    def message(self) -> str:
        first = self.conversation.turns.order_by("position").first()
        return str((first.payload if first else {}).get("message", ""))

    def call(self, name: str, arguments: Any, *, record: dict[str, Any] | None = None) -> ToolOutcome:
        """One tool call through the dispatcher, as the key's owner. The confirmation argument is
        never passed (this agent cannot get a person's confirmation), not even inside callTool's
        `arguments`, so a GATED, HIGH RISK or DESTRUCTIVE tool is refused, called directly or
        through callTool. `record` (the transcript message of the result, without its
        content) is appended in the same transaction as the tool's own writes, with the cost of
        the model calls the tool made with the conversation's key."""
        services.lease_extend(
            conversation_id=self.conversation.pk,
            token=self.token,
            seconds=TOOL_LEASE_SECONDS + settings.GATEWAY_LEASE_MARGIN_SECONDS,
        )
        with (
            services.locked(self.conversation.pk, self.token) as conversation,
            spending.collected() as charges,
        ):
            outcome = self._dispatch(name, arguments)
            # Model calls the tool made with the key (a text written, an image described, a
            # search put in order) are this conversation's cost too, paid even if the tool failed.
            services.tool_costs_record(
                conversation=conversation,
                micro_usd=[charge.micro_usd for charge in charges if charge.key_id == conversation.key_id],
            )
            if record is not None:
                services.step_append(
                    conversation=conversation,
                    message={**record, "content": outcome.text, "is_error": outcome.is_error},
                )
            else:
                Conversation.objects.filter(pk=conversation.pk).update(tool_calls=F("tool_calls") + 1)
        return outcome

    def _dispatch(self, name: str, arguments: Any) -> ToolOutcome:
        if not isinstance(arguments, dict):
            return ToolOutcome(
                name, f"The arguments of {name} must be a JSON object; nothing was done.", True
            )
        arguments = {key: value for key, value in arguments.items() if key != CONFIRMATION_ARGUMENT}
        # callTool runs another tool, whose confirmation is asked for inside its `arguments`: that
        # tool is the one to refuse, with the same words as a direct call of it.
        target = name
        spec = registry.get(name)
        if spec is not None and spec.runs_tools and isinstance(arguments.get("name"), str):
            target = arguments["name"]
            inner = arguments.get("arguments")
            if isinstance(inner, dict):
                inner = {key: value for key, value in inner.items() if key != CONFIRMATION_ARGUMENT}
                arguments = {**arguments, "arguments": inner}
        with metrics.ToolCall("gateway", name) as counted:
            try:
                result = counted.answered(call_tool(self.context, name, arguments))
            except ToolNotFound:
                counted.outcome = "not_found"
                return ToolOutcome(
                    name,
                    f"There is no tool named {name} that you may use. Use searchTools to find the right one.",
                    True,
                )
        text = "\n".join(
            block.get("text", "") for block in result.get("content", []) if isinstance(block, dict)
        )
        ran = registry.get(target)
        if (
            result.get("isError")
            and ran is not None
            and ran.needs_confirmation
            and CONFIRMATION_ARGUMENT in text
        ):
            return ToolOutcome(name, refusal_text(target), True, result, refused_for_confirmation=True)
        text = _CONFIRMATION_TOKEN.sub("confirm_…", text)
        if len(text) > TOOL_RESULT_MAX_CHARS:
            text = (
                text[:TOOL_RESULT_MAX_CHARS]
                + " … (cut: the result was longer; ask for less, e.g. a smaller limit)"
            )
        return ToolOutcome(name, text, bool(result.get("isError")), result)
