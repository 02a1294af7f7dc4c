"""What each MCP revision this endpoint speaks changes, in one place.

A session keeps the revision `initialize` negotiated (`McpSession.protocol_version`); everything
that differs between revisions asks its `Revision` here, never compares version strings itself.
A revision added later (2026-07-28) is one more entry in `REVISIONS`, with the flags it turns on
and whatever new ones it needs.

2025-03-26 and 2025-06-18 are served alike, as they were before 2025-11-25 was added: a client
offering either gets exactly that behaviour.
"""

from dataclasses import dataclass

# The JSON Schema dialect of every tool's inputSchema and outputSchema (pydantic writes 2020-12;
# `apps.catalogue.checks` validates them against its metaschema). 2025-11-25 makes it the default
# dialect of schemas without `$schema`, so the schemas need not name it.
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class Revision:
    version: str
    # Tools carry their area's icon and serverInfo the workspace's (SEP-973).
    icons: bool = False
    # A POST answered as an event stream starts with a priming event, numbers its events, says how
    # soon to reconnect (`retry`), and can be resumed with GET and Last-Event-ID (SEP-1699).
    resumable_posts: bool = False
    # A tool the role allows but the token's scope does not (a write tool with `mcp:read`) is
    # answered with HTTP 403 and the insufficient_scope challenge naming the scope to ask for
    # (incremental consent); before, it was an unknown tool, like any tool out of reach.
    scope_step_up: bool = False
    # Elicitation: form questions may carry defaults, titled and multi-select enums (SEP-1034,
    # SEP-1330); URL-mode questions (SEP-1036) when the client declares `elicitation.url`.
    elicitation_modes: bool = False
    # Tasks (SEP-1686, experimental): the `tasks` capability, `execution.taskSupport` on long
    # tools, task-augmented tools/call and the tasks/* methods (apps.mcp.jobs).
    tasks: bool = False

    @property
    def schema_dialect(self) -> str:
        return SCHEMA_DIALECT


REVISIONS: dict[str, Revision] = {
    revision.version: revision
    for revision in (
        Revision("2025-03-26"),
        Revision("2025-06-18"),
        Revision(
            "2025-11-25",
            icons=True,
            resumable_posts=True,
            scope_step_up=True,
            elicitation_modes=True,
            tasks=True,
        ),
    )
}
# Answered to a client that offers a version this server does not speak.
LATEST = "2025-11-25"
# Newest first.
SUPPORTED = tuple(sorted(REVISIONS, reverse=True))


def negotiate(offered: object) -> Revision:
    """The revision answered to `initialize`: an offered version we speak is echoed; anything
    else (a newer one, an unknown one) gets the latest, and the client decides whether to go on."""
    if isinstance(offered, str) and offered in REVISIONS:
        return REVISIONS[offered]
    return REVISIONS[LATEST]


def of(version: str | None) -> Revision:
    """The revision of a session (its stored version); one this process does not know, written by
    a newer process during a deployment, is served as the oldest handshake revision we speak."""
    return REVISIONS.get(version or "", REVISIONS["2025-06-18"])
