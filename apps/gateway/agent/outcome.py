from dataclasses import dataclass

from apps.gateway.models import Conversation


@dataclass(frozen=True)
class Finish:
    """How an agent's run ends: resolved with a reply, or failed with a code, a message that
    reveals nothing internal (the webhook's `error`) and, when there is something to tell the
    caller, a reply turn."""

    status: str
    reply: str = ""
    error_code: str = ""
    error_message: str = ""

    @classmethod
    def resolved(cls, reply: str) -> "Finish":
        return cls(Conversation.Status.RESOLVED, reply=reply)

    @classmethod
    def failed(cls, code: str, message: str, *, reply: str = "") -> "Finish":
        return cls(Conversation.Status.FAILED, reply=reply, error_code=code, error_message=message)
