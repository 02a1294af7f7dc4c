"""What a tool needs from the client before it can answer, for doors that ask by answering
(MCP 2026-07-28, SEP-2322 "input required"): instead of sending the client a request on a stream
and waiting, the call ends with the questions (`inputRequests`, keyed by names the tool chooses)
and an opaque `requestState`; the client retries the same call with `inputResponses` under those
names and the state echoed back.

The state is the server's memory of the exchange, held by the client: it is signed (HMAC with
SECRET_KEY) and bound to the tool, the person, the credential and the exact arguments, and
expires after `ATRIUM_CONFIRMATION_TTL_SECONDS`. A state that was altered, belongs to another
call or expired is refused (`InvalidRequestState`, a JSON-RPC invalid-params error at the door),
never read. Nothing is stored on the server until a state is spent (`nonce`, for answers that
may be used once, such as a confirmation).
"""

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings

# What a door can ask a client to answer, and the client capability each needs (2026-07-28).
CAPABILITY_OF_METHOD = {
    "elicitation/create": "elicitation",
    "sampling/createMessage": "sampling",
    "roots/list": "roots",
}


class InputRequired(Exception):
    """Raised by a tool (or by the dispatcher's confirmation) when it needs the client's answers
    first. `requests` maps the names the answers come back under to {"method", "params"};
    `state` is what the tool wants back with them (JSON), signed by the dispatcher."""

    def __init__(self, requests: dict[str, dict[str, Any]], state: dict[str, Any] | None = None) -> None:
        super().__init__(", ".join(requests))
        self.requests = requests
        self.state = state


class InvalidRequestState(Exception):
    """The `requestState` sent back is not one this server issued for this very call."""


class InvalidInputResponses(Exception):
    """`inputResponses` is not an object of answers (each an object)."""


class MissingClientCapability(Exception):
    """The call needs a capability the client did not declare (`capability`, e.g. "sampling")."""

    def __init__(self, capability: str) -> None:
        super().__init__(capability)
        self.capability = capability


class InputNotSupported(Exception):
    """The door cannot ask by answering (a 2025 session: it asks on the stream instead)."""


@dataclass(frozen=True)
class Binding:
    """What a state is good for: one tool, called by one person through one credential with
    these arguments (their digest)."""

    tool: str
    person: str
    credential: str
    arguments: str


def arguments_digest(arguments: Any) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _ttl() -> int:
    return int(getattr(settings, "ATRIUM_CONFIRMATION_TTL_SECONDS", 600))


def _mac(payload: bytes) -> str:
    key = hashlib.sha256(b"mcp-request-state\n" + settings.SECRET_KEY.encode()).digest()
    return base64.urlsafe_b64encode(hmac.new(key, payload, hashlib.sha256).digest()).rstrip(b"=").decode()


def seal(data: dict[str, Any] | None, binding: Binding) -> str:
    """A `requestState` carrying `data`, good for `binding` until it expires."""
    payload = json.dumps(
        {
            "d": data or {},
            "t": binding.tool,
            "p": binding.person,
            "c": binding.credential,
            "a": binding.arguments,
            "x": int(time.time()) + _ttl(),
            "n": secrets.token_urlsafe(12),
        },
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    body = base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
    return f"{body}.{_mac(payload)}"


@dataclass(frozen=True)
class OpenedState:
    data: dict[str, Any]
    # Unique to the state: what a door records to spend it once.
    nonce: str
    expires: int


def unseal(state: Any, binding: Binding) -> OpenedState:
    """The data of a state issued for `binding`; InvalidRequestState otherwise."""
    if not isinstance(state, str) or state.count(".") != 1 or len(state) > 16_384:
        raise InvalidRequestState("requestState is not one this server issued")
    body, mac = state.split(".")
    try:
        payload = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except ValueError:
        raise InvalidRequestState("requestState is not one this server issued") from None
    if not hmac.compare_digest(_mac(payload), mac):
        raise InvalidRequestState("requestState was altered or is not one this server issued")
    opened = json.loads(payload)
    if (opened.get("t"), opened.get("p"), opened.get("c"), opened.get("a")) != (
        binding.tool,
        binding.person,
        binding.credential,
        binding.arguments,
    ):
        raise InvalidRequestState("requestState was issued for another call (tool, arguments or caller)")
    if int(opened.get("x", 0)) < time.time():
        raise InvalidRequestState("requestState has expired: call the tool again without it")
    return OpenedState(dict(opened.get("d") or {}), str(opened.get("n")), int(opened["x"]))


def checked_responses(value: Any) -> dict[str, dict[str, Any]]:
    """`inputResponses` as sent (absent: none), or InvalidInputResponses."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInputResponses(
            "`inputResponses` must be an object mapping each input request's key to its answer"
        )
    for key, answer in value.items():
        if not isinstance(answer, dict):
            raise InvalidInputResponses(
                f"`inputResponses.{str(key)[:80]}` must be an object (the answer to that request)"
            )
    return value


def elicitation(message: str, requested_schema: dict[str, Any]) -> dict[str, Any]:
    """An input request that asks the user a form question (`elicitation/create`)."""
    return {
        "method": "elicitation/create",
        "params": {"message": message, "requestedSchema": requested_schema},
    }
