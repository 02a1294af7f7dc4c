"""The tool catalogue (apps.catalogue): extra tool modules, the tool-call log, confirmations."""

from apps.core import env

# Extra tool modules imported at start-up. Only the test settings list any (fixture tools, such as
# those the MCP conformance suite calls); production never loads tools from outside the apps.
ATRIUM_EXTRA_TOOL_MODULES: list[str] = []
# The tool-call log is written in batches, off the request path: every this many seconds, or
# sooner once ATRIUM_AUDIT_BATCH_SIZE calls wait. 0 writes each call at once (tests).
ATRIUM_AUDIT_FLUSH_SECONDS = env.float("ATRIUM_AUDIT_FLUSH_SECONDS", 1.0, min=0)
ATRIUM_AUDIT_BATCH_SIZE = env.int("ATRIUM_AUDIT_BATCH_SIZE", 500, min=1)
# Calls spread thin over many workspaces (fewer than two a workspace) wait longer, up to this many
# seconds, so that each workspace's rows go in together (apps.catalogue.audit).
ATRIUM_AUDIT_SPREAD_SECONDS = env.float("ATRIUM_AUDIT_SPREAD_SECONDS", 5.0, min=0)
ATRIUM_AUDIT_RETENTION_DAYS = env.int("ATRIUM_AUDIT_RETENTION_DAYS", 180, min=0)
# How long a confirmation token of a GATED / HIGH RISK / DESTRUCTIVE tool stays valid.
ATRIUM_CONFIRMATION_TTL_SECONDS = env.int("ATRIUM_CONFIRMATION_TTL_SECONDS", 600, min=1)
# searchTools: put its first twenty in order through the service's model backend (the message
# gateway's, metered to the caller's API key); off by default, never needed offline.
ATRIUM_CATALOGUE_SEARCH_RERANK = env.bool("ATRIUM_CATALOGUE_SEARCH_RERANK", False)
# A write tool whose COMMIT got no answer (the connection lost, PostgreSQL restarting): how long
# the call keeps asking PostgreSQL whether its transaction was saved before answering
# OUTCOME_UNKNOWN rather than a success or a failure (apps.catalogue.dispatch, `_committed`).
CATALOGUE_COMMIT_FATE_SECONDS = env.float("ATRIUM_CATALOGUE_COMMIT_FATE_SECONDS", 10.0, min=0)
