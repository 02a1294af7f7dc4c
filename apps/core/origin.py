"""Through which door a change is being made: an agent's tool call, or nothing (a settings page,
a scheduled run).

The catalogue's dispatcher sets it around each tool it runs; an area that keeps a history reads
it when it records a change, so the history can say that an agent made it (through the MCP
endpoint or the gateway's agent, with which client and tool), not only whose the agent is:

    with origin.through(Origin(door="mcp", tool="updateContact", client="Claude Desktop")):
        ...                                    # origin.current() is that Origin here
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Origin:
    # "mcp" (the MCP endpoint) or "gateway" (the service's own agent, /api/agent).
    door: str
    # The tool's catalogue name ("updateContact").
    tool: str
    # The OAuth client's self-declared name, or the API key's label: no secret, no personal data.
    client: str = ""


_current: ContextVar[Origin | None] = ContextVar("atrium_origin", default=None)


def current() -> Origin | None:
    """The tool call running now in this context, or None (a person on a page, a task)."""
    return _current.get()


@contextmanager
def through(origin: Origin) -> Iterator[Origin]:
    """Runs the block as part of `origin` (nested calls, callTool running a tool, see the inner one)."""
    token = _current.set(origin)
    try:
        yield origin
    finally:
        _current.reset(token)
