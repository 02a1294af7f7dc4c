"""What the clients of the load were told against what PostgreSQL has: each createContact by the
unique address it tried, each file upload by its unique name, each gateway post by the unique tag
of its metadata (bench/load.py's
clients write them; bench/soak.py and tests/test_faults.py check them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.load import Outcome

EMAIL_DOMAIN = "load.test"
# The metadata key carrying each gateway post's tag.
TAG = "load"

# A tool's answer when its commit got no answer and its fate could not be told in time
# (apps.catalogue.errors.OutcomeUnknown): neither a success nor a failure.
OUTCOME_UNKNOWN_TEXT = "may or may not have been done"


def told_unknown(outcome: Outcome) -> bool:
    """Whether the client was told nothing certain: no answer (a timeout, a connection cut), a 5xx
    that is not the service's own 503 UNAVAILABLE (the proxy's 502 for a web process killed
    mid-request: the request may have run to its commit), or a tool's OUTCOME_UNKNOWN."""
    return outcome.kind in {"timeout", "connection", "5xx"} or (
        outcome.kind == "tool_error" and OUTCOME_UNKNOWN_TEXT in outcome.detail
    )


def ledger(outcomes: list[Outcome], attribute: str = "email") -> tuple[set[str], set[str], set[str]]:
    """(answered success, answered failure, unknown: `told_unknown`) of the createContact calls
    (by address), with `attribute="tag"` of the gateway's posts (by tag), with `attribute="name"`
    of the file uploads (by name)."""
    ok, failed, unknown = set(), set(), set()
    for outcome in outcomes:
        value = getattr(outcome, attribute)
        if value is None:
            continue
        if outcome.kind == "ok":
            ok.add(value)
        elif told_unknown(outcome):
            unknown.add(value)
        else:
            failed.add(value)
    return ok, failed, unknown


def stored_emails(database_url: str, schema_name: str) -> set[str]:
    """The load's contacts as PostgreSQL has them (read directly: no cache, no process of ours)."""
    import psycopg
    from psycopg import sql

    query = sql.SQL("SELECT email FROM {}.contacts_contact WHERE email LIKE %s").format(
        sql.Identifier(schema_name)
    )
    with psycopg.connect(database_url, connect_timeout=10) as connection:
        return {row[0] for row in connection.execute(query, [f"load-%@{EMAIL_DOMAIN}"])}


def half_written(outcomes: list[Outcome], database_url: str, schema_name: str) -> tuple[set[str], set[str]]:
    """(answered success but missing, answered failure but stored)."""
    ok, failed, _unknown = ledger(outcomes)
    stored = stored_emails(database_url, schema_name)
    return ok - stored, failed & stored


def stored_posts(database_url: str, schema_name: str) -> dict[str, bool]:
    """The load's conversations as PostgreSQL has them: tag -> whether its first turn (the
    message) is there too."""
    import psycopg
    from psycopg import sql

    query = sql.SQL(
        "SELECT c.metadata ->> %s, EXISTS (SELECT 1 FROM {turn} t WHERE t.conversation_id = c.id "
        "AND t.position = 0) FROM {conversation} c WHERE c.metadata ? %s"
    ).format(
        turn=sql.Identifier(schema_name, "gateway_turn"),
        conversation=sql.Identifier(schema_name, "gateway_conversation"),
    )
    with psycopg.connect(database_url, connect_timeout=10) as connection:
        return {row[0]: row[1] for row in connection.execute(query, [TAG, TAG])}


def half_written_posts(
    outcomes: list[Outcome], database_url: str, schema_name: str
) -> tuple[set[str], set[str], set[str]]:
    """Of the gateway's posts: (answered 202 but missing, answered failure but stored, stored
    without its first turn)."""
    ok, failed, _unknown = ledger(outcomes, "tag")
    stored = stored_posts(database_url, schema_name)
    return ok - set(stored), failed & set(stored), {tag for tag, whole in stored.items() if not whole}


def stored_files(database_url: str, schema_name: str) -> set[str]:
    """The names of the load's files as PostgreSQL has them (in the trash or not)."""
    import psycopg
    from psycopg import sql

    query = sql.SQL("SELECT name FROM {} WHERE name LIKE %s").format(
        sql.Identifier(schema_name, "files_file")
    )
    with psycopg.connect(database_url, connect_timeout=10) as connection:
        return {row[0] for row in connection.execute(query, ["load-%.bin"])}


def half_written_files(
    outcomes: list[Outcome], database_url: str, schema_name: str
) -> tuple[set[str], set[str]]:
    """Of the file uploads: (answered success but missing, answered failure but stored)."""
    ok, failed, _unknown = ledger(outcomes, "name")
    if not (ok or failed):
        return set(), set()
    stored = stored_files(database_url, schema_name)
    return ok - stored, failed & stored
