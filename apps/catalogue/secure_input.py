"""What a tool asks for when it needs something that must never pass through the model: a
password of an outside account, a credential, a payment. The person types it on a page of this
workspace, signed in as themselves; the tool receives it, the agent and its client never do.

A tool asks through its context, and keeps what it receives encrypted itself
(`apps.core.encryption`), as every credential of an outside service is kept:

    password = ctx.secure_input(
        purpose=f"calendars.feed:{feed_key}",      # what it is for; one value per person and purpose
        message="Enter the password of the calendar feed at example.org.",
        label="Password",
    )
    feed.password_encrypted = encryption.encrypt(password)

`secure_input` returns the value once the person has entered it. Until then it raises
`SecureInputRequired`, which each door answers in its own way (the MCP door: URL-mode elicitation
for a 2025-11-25 client, the JSON-RPC error -32042 for one that cannot open URLs, a tool error
with the link for older clients; docs/mcp.md, "Secure input"); the agent calls the tool again
once the person has done it. Declined or cancelled by the person: `SecureInputDeclined`, which
the dispatcher answers as a tool error. A door that has no page to send the person to leaves
`ToolContext.secure_input_door` unset, and the tool gets `SecureInputUnavailable`
(apps.catalogue.errors, an AppError: a tool error saying where to do it instead).

This module is the tools' side only; the door that provides it is `apps.mcp.secure_input`.
"""

from dataclasses import dataclass
from typing import Any

# A purpose names what the value is for, in the area's words: "<area>.<what>:<which>".
MAX_PURPOSE = 200


@dataclass(frozen=True)
class SecureInputRequest:
    """One value a tool needs the person to enter outside the conversation."""

    purpose: str
    # Shown to the person in the client and on the page: why, and for what (never the value).
    message: str
    # The form field's label ("Password", "API key").
    label: str


class SecureInputRequired(Exception):
    """The person has not entered the value yet. `elicitations` are the URL-mode elicitations
    (MCP `ElicitRequestURLParams`: mode, elicitationId, url, message) that let them do it;
    `fallback` is the text a door without URL elicitation gives the agent instead."""

    def __init__(self, elicitations: list[dict[str, Any]], fallback: str) -> None:
        super().__init__(fallback)
        self.elicitations = elicitations
        self.fallback = fallback


class SecureInputDeclined(Exception):
    """The person declined (or cancelled) entering the value: the tool does nothing."""
