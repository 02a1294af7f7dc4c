"""What each MCP revision this endpoint speaks changes, in one place.

A session keeps the revision `initialize` negotiated (`McpSession.protocol_version`); a request of
a stateless revision (2026-07-28) names its own in the MCP-Protocol-Version header and in `_meta`.
Everything that differs between revisions asks its `Revision` here, never compares version
strings itself.

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
    # 2026-07-28 (SEP-2575): no `initialize` and no session; every request carries its version,
    # the client's capabilities and info in `_meta`; `server/discover` describes the server; the
    # Mcp-Method / Mcp-Name headers must mirror the body; methods it removed (initialize, ping,
    # logging/setLevel, ...) and unknown ones are HTTP 404; the GET stream is replaced by
    # `subscriptions/listen`; results say their `resultType`, cacheable ones `ttlMs` and
    # `cacheScope` (SEP-2549); the server asks the client nothing on a stream: what it needs comes
    # back in an `InputRequiredResult` the client answers by retrying (SEP-2322).
    stateless: bool = False
    # Tasks (SEP-1686, experimental): the `tasks` capability, `execution.taskSupport` on long
    # tools, task-augmented tools/call and the tasks/* methods (apps.mcp.jobs).
    tasks: bool = False
    # Tasks as the `io.modelcontextprotocol/tasks` extension (SEP-2663): declared in
    # `server/discover`; the server makes a long tool's call a task for a request that declares the
    # extension (a CreateTaskResult, `resultType: "task"`); `tasks/get` (the task with its result,
    # error or `inputRequests`), `tasks/update` (`inputResponses`), `tasks/cancel`; no tasks/list,
    # no tasks/result; `notifications/tasks` on `subscriptions/listen` (apps.mcp.jobs).
    tasks_extension: bool = False

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
        Revision(
            "2026-07-28",
            icons=True,
            scope_step_up=True,
            elicitation_modes=True,
            stateless=True,
            tasks_extension=True,
        ),
    )
}
# The newest revision this server speaks (a stateless one: it needs no handshake).
LATEST = "2026-07-28"
# The newest revision `initialize` can negotiate: answered to a client that offers a version this
# server does not speak, or a stateless one (which has no `initialize`).
LATEST_HANDSHAKE = "2025-11-25"
# Newest first.
SUPPORTED = tuple(sorted(REVISIONS, reverse=True))


def negotiate(offered: object) -> Revision:
    """The revision answered to `initialize`: an offered handshake version we speak is echoed;
    anything else (a stateless one, a newer one, an unknown one) gets the latest handshake
    revision, and the client decides whether to go on."""
    if isinstance(offered, str) and offered in REVISIONS and not REVISIONS[offered].stateless:
        return REVISIONS[offered]
    return REVISIONS[LATEST_HANDSHAKE]


def stateless(version: object) -> Revision | None:
    """The stateless revision a request names (its MCP-Protocol-Version header, or its `_meta`),
    or None when it names a handshake revision, an unknown one or none."""
    revision = REVISIONS.get(version) if isinstance(version, str) else None
    return revision if revision is not None and revision.stateless else None


def of(version: str | None) -> Revision:
    """The revision of a session (its stored version); one this process does not know, written by
    a newer process during a deployment, is served as the oldest handshake revision we speak (a
    session never has a stateless revision)."""
    revision = REVISIONS.get(version or "")
    if revision is None or revision.stateless:
        return REVISIONS["2025-06-18"]
    return revision
