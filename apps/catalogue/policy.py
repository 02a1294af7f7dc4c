"""Markers, enforced by the dispatcher (never inside a tool). The rules are written out for
people in docs/catalogue.md.

MANDATORY FIRST CALL: in an area that has such a tool, every other tool of the area answers with
an error naming it until it has succeeded once in the session.

GATED, HIGH RISK, DESTRUCTIVE: the tool runs only once the user has confirmed this very call.
- The client declared elicitation: the user is asked through `elicitation/create` with a single
  yes/no field; "accept" with `confirm: true` runs the tool, anything else leaves it undone. A
  client that reads 2025-11-25 forms is asked with a titled choice instead ("Allow <tool>" or
  "Stop", "Stop" chosen by default): "accept" with `decision: "allow"` runs the tool. An answer
  that does not fit the question's schema (JSON Schema 2020-12) is no confirmation.
- A client of a door that asks by answering (MCP 2026-07-28) and declared elicitation: the call
  ends with an `InputRequiredResult` holding the same question under "confirm" and a request
  state sealed to this exact call (`apps.catalogue.inputs`); the client retries with the user's
  answer and the state. An "allow" runs the call once: the state's nonce is then spent.
- Otherwise (or when the question could not be asked): the answer is a tool error that says what
  the call would do and carries a one-time confirmation token. The agent asks the user in its
  own words; if they agree, it repeats the call with the same arguments plus `confirmationToken`.
  A token is bound to the session, the person, the tool and the exact arguments, works once, and
  expires after `ATRIUM_CONFIRMATION_TTL_SECONDS`.
"""

import hashlib
import hmac
import json
import secrets
import time
from typing import Any

from django.conf import settings

from apps.catalogue import registry
from apps.catalogue.registry import CONFIRMATION_ARGUMENT, ToolSpec

FIRST_CALL_KEY = "catalogue:first-call"
CONFIRMATIONS_KEY = "catalogue:confirmations"
SPENT_KEY = "catalogue:spent-confirmations"
# The name a confirmation question goes under in an InputRequiredResult (MCP 2026-07-28).
CONFIRM_INPUT = "confirm"
MAX_OUTSTANDING_TOKENS = 20

CONFIRM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "confirm": {
            "type": "boolean",
            "title": "Allow this action",
            "description": "Tick to let the agent go ahead; leave unticked to stop it.",
        }
    },
    "required": ["confirm"],
}

ALLOW, STOP = "allow", "stop"


def confirm_schema(spec: ToolSpec, *, rich: bool) -> dict[str, Any]:
    """The question that confirms a call of `spec`: the yes/no field every elicitation client
    reads, or, for clients that read 2025-11-25 forms, a titled single choice whose default is
    to stop (SEP-1330 titled enums, SEP-1034 defaults)."""
    if not rich:
        return CONFIRM_SCHEMA
    return {
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Your decision",
                "oneOf": [
                    {"const": ALLOW, "title": f"Allow {spec.name}"},
                    {"const": STOP, "title": "Stop: do nothing"},
                ],
                "default": STOP,
            }
        },
        "required": ["decision"],
    }


def confirmed(schema: dict[str, Any], answer: dict[str, Any] | None) -> bool:
    """Whether the client's answer to `confirm_schema` allows the call: accepted, content valid
    against the question (Draft 2020-12), and the yes chosen."""
    from jsonschema import Draft202012Validator

    answer = answer or {}
    content = answer.get("content")
    if answer.get("action") != "accept" or not isinstance(content, dict):
        return False
    if not Draft202012Validator(schema).is_valid(content):
        return False
    return content.get("confirm") is True or content.get("decision") == ALLOW


_first_calls: dict[str, ToolSpec] = {}
_first_calls_version = -1


def first_call_tool(area: str) -> ToolSpec | None:
    """The MANDATORY FIRST CALL tool of an area, if it has one."""
    global _first_calls, _first_calls_version
    if _first_calls_version != registry.version():
        _first_calls = {spec.area: spec for spec in registry.all_tools() if spec.is_first_call}
        _first_calls_version = registry.version()
    return _first_calls.get(area)


def missing_first_call(spec: ToolSpec, session: Any) -> ToolSpec | None:
    first = first_call_tool(spec.area)
    if first is None or first.name == spec.name:
        return None
    done = session.get(FIRST_CALL_KEY) or []
    return None if spec.area in done else first


def note_first_call(spec: ToolSpec, session: Any) -> None:
    done = list(session.get(FIRST_CALL_KEY) or [])
    if spec.area not in done:
        session.set(FIRST_CALL_KEY, [*done, spec.area])


def first_call_message(spec: ToolSpec, first: ToolSpec) -> str:
    return (
        f"{first.name} must be called first: it is the mandatory first call for the "
        f"{spec.area} tools in each session. Call {first.name}, then call {spec.name} again."
    )


# --- confirmation -------------------------------------------------------------------------------


def arguments_digest(spec: ToolSpec, user_pk: Any, arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    message = f"{spec.name}\n{user_pk}\n{canonical}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def _ttl() -> int:
    return int(getattr(settings, "ATRIUM_CONFIRMATION_TTL_SECONDS", 600))


def issue_token(session: Any, digest: str) -> str:
    now = time.time()
    outstanding = {
        token: entry
        for token, entry in (session.get(CONFIRMATIONS_KEY) or {}).items()
        if entry.get("expires", 0) > now
    }
    while len(outstanding) >= MAX_OUTSTANDING_TOKENS:
        outstanding.pop(min(outstanding, key=lambda token: outstanding[token]["expires"]))
    token = f"confirm_{secrets.token_urlsafe(12)}"
    outstanding[token] = {"digest": digest, "expires": now + _ttl()}
    session.set(CONFIRMATIONS_KEY, outstanding)
    return token


def redeem_token(session: Any, token: str, digest: str) -> bool:
    """True once for a token issued for exactly this call; the token is spent either way."""
    outstanding = dict(session.get(CONFIRMATIONS_KEY) or {})
    entry = outstanding.pop(token, None)
    if entry is None:
        return False
    session.set(CONFIRMATIONS_KEY, outstanding)
    return entry.get("expires", 0) > time.time() and hmac.compare_digest(entry.get("digest", ""), digest)


def spend_once(session: Any, nonce: str, expires: float) -> bool:
    """True the first time a confirmation's nonce is spent in this session state (until it
    expires), False after: for doors without a shared record of their own."""
    now = time.time()
    spent = {key: until for key, until in (session.get(SPENT_KEY) or {}).items() if until > now}
    if nonce in spent:
        return False
    spent[nonce] = expires
    session.set(SPENT_KEY, spent)
    return True


def describe_call(spec: ToolSpec, arguments: dict[str, Any], limit: int = 600) -> str:
    shown = json.dumps(arguments, ensure_ascii=False, default=str)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return f"“{spec.title}” ({spec.name}) with {shown}"


def elicitation_message(spec: ToolSpec, arguments: dict[str, Any]) -> str:
    return (
        f"An agent asks to run {describe_call(spec, arguments)}. "
        f"This tool is marked {', '.join(spec.markers.labels)}. Allow it?"
    )


def confirmation_required_message(
    spec: ToolSpec, arguments: dict[str, Any], token: str, *, retry: bool
) -> str:
    minutes = max(1, _ttl() // 60)
    lead = (
        "That confirmation token is not valid for this call (it was used, expired, or was issued "
        "for other arguments or another session). "
        if retry
        else ""
    )
    return (
        f"{lead}Confirmation required: {spec.name} is marked {', '.join(spec.markers.labels)} and runs "
        f"only after the user confirms this exact call. Nothing was done. Tell the user what it will do: "
        f"{describe_call(spec, arguments)}, and ask whether to go ahead. Only if they agree, call "
        f'{spec.name} again with the same arguments plus "{CONFIRMATION_ARGUMENT}": "{token}". '
        f"The token works once, for these arguments, in this session, for {minutes} minutes."
    )


def declined_message(spec: ToolSpec, action: str) -> str:
    if action == "cancel":
        return (
            f"The user dismissed the confirmation of {spec.name} without answering; nothing was done. "
            "Ask them in the conversation whether they want it before trying again."
        )
    return (
        f"The user declined {spec.name}; nothing was done. Do not call it again unless the user asks for it."
    )
