"""The MCP endpoint (apps.mcp): Streamable HTTP, its sessions and thread pools."""

from apps.core import env

# Browser origins allowed besides the workspace's own hosts (DNS-rebinding protection); requests
# without an Origin header (non-browser clients) always pass.
MCP_ALLOWED_ORIGINS = env.list("ATRIUM_MCP_ALLOWED_ORIGINS", [])
# A session unused this long is over (404; the client initializes again).
MCP_SESSION_IDLE_SECONDS = env.int("ATRIUM_MCP_SESSION_IDLE_SECONDS", 24 * 3600, min=1)
# A live session is kept this long in each web process (ending it is seen at once everywhere:
# apps.mcp.sessions).
MCP_SESSION_CACHE_SECONDS = env.float("ATRIUM_MCP_SESSION_CACHE_SECONDS", 10.0, min=0)
# A good credential is trusted this long in each web process before it is checked again.
MCP_CREDENTIAL_CACHE_SECONDS = env.float("ATRIUM_MCP_CREDENTIAL_CACHE_SECONDS", 5.0, min=0)
# While a web process is told of every change as it happens (apps.mcp.endings), what it keeps of
# the rows each request reads (host -> workspace, a workspace's host names, a credential, a live
# session) lives up to this long instead of the short whiles above (apps.core.kept), and is read
# again in the background while in use. A change made through the service is seen at once
# everywhere; this bounds what a change the processes were not told of (made by hand in the
# database, or told while Redis refused the message, which is logged) takes to be seen. Each
# workspace in use costs its process a few background reads per this while.
TOLD_CACHE_SECONDS = env.float("ATRIUM_TOLD_CACHE_SECONDS", 300.0, min=0)
MCP_KEEPALIVE_SECONDS = env.float("ATRIUM_MCP_KEEPALIVE_SECONDS", 15.0, min=0)
# Server-to-client messages kept per session for Last-Event-ID, and for how long.
MCP_EVENT_BUFFER = 100
MCP_EVENT_BUFFER_SECONDS = 3600
MCP_TOOLS_PAGE_SIZE = env.int("ATRIUM_MCP_TOOLS_PAGE_SIZE", 100, min=1)
MCP_ELICITATION_TIMEOUT_SECONDS = 600
MCP_MAX_BODY_BYTES = 4 * 1024 * 1024
# Threads per web process running the synchronous part of MCP requests (ORM, tools), in two pools
# (apps/mcp/consumers.py). Quick: every request but the calls below; few, because more threads
# only contend for the interpreter (bench/RESULTS.md). Waiting: calls of tools that may wait on
# someone else (the user's confirmation through an elicitation, an outside service); each waiting
# call holds one, and never a quick one, so the answer it waits for always finds a thread.
MCP_QUICK_THREADS = env.int("ATRIUM_MCP_QUICK_THREADS", 2, min=1)
MCP_WORKER_THREADS = env.int("ATRIUM_MCP_WORKER_THREADS", 16, min=1)
# ping, tools/list and the tools written for it (`on_loop=True`) are served on the event loop
# itself, their statements awaited on up to this many async connections per web process, instead
# of in a quick thread (apps/core/onloop.py); whatever would block there goes to a thread.
SERVE_ON_LOOP = env.bool("ATRIUM_SERVE_ON_LOOP", True)
SERVE_ON_LOOP_CONNECTIONS = env.int("ATRIUM_SERVE_ON_LOOP_CONNECTIONS", 4, min=1)
# Each of those connections is a lane that a workspace's statements go to (a hash of its schema;
# apps/core/onloop.py), and keeps up to this many statements prepared on its PostgreSQL backend:
# the workspaces of its lane (1/SERVE_ON_LOOP_CONNECTIONS of them) times the loop's statements of
# each (one for getContact). Each costs the backend its plan (~200 kB for getContact's, measured).
SERVE_ON_LOOP_PREPARED_MAX = env.int("ATRIUM_SERVE_ON_LOOP_PREPARED_MAX", 1000, min=1)
# false: any free connection, whatever the workspace (as before lanes; for comparing them).
SERVE_ON_LOOP_LANES = env.bool("ATRIUM_SERVE_ON_LOOP_LANES", True)
# Calls waiting for their person's answer, per web process (apps/mcp/waiting.py): the waiting pool
# has this many threads more, and a call past a limit gets a confirmation token instead of a
# question, so unanswered questions never take the threads other people's calls run on.
MCP_MAX_WAITING = env.int("ATRIUM_MCP_MAX_WAITING", 32, min=1)
MCP_MAX_WAITING_PER_SESSION = env.int("ATRIUM_MCP_MAX_WAITING_PER_SESSION", 4, min=1)
MCP_MAX_WAITING_PER_PERSON = env.int("ATRIUM_MCP_MAX_WAITING_PER_PERSON", 8, min=1)
# 2026-07-28 (stateless requests): how long a client may reuse a `tools/list` or `server/discover`
# answer (`ttlMs`; the list also changes through `subscriptions/listen`), and how long what the
# catalogue keeps per session (MANDATORY FIRST CALL done, confirmation tokens) is kept per person
# and credential after its last change, there being no session.
MCP_LIST_TTL_SECONDS = env.int("ATRIUM_MCP_LIST_TTL_SECONDS", 60, min=0)
MCP_CALLER_STATE_SECONDS = env.int("ATRIUM_MCP_CALLER_STATE_SECONDS", 24 * 3600, min=1)
# Secure input (apps.mcp.secure_input): how long the link to the page stays valid, and how long a
# value entered there waits, encrypted, for the tool that asked for it.
MCP_SECURE_INPUT_SECONDS = env.int("ATRIUM_MCP_SECURE_INPUT_SECONDS", 15 * 60, min=60)
# Tasks (apps.mcp.jobs, 2025-11-25): how long a task is kept after it was made when the client asks
# for no ttl, the most it may ask for, and how often clients are told to poll.
MCP_TASK_TTL_SECONDS = env.int("ATRIUM_MCP_TASK_TTL_SECONDS", 3600, min=60)
MCP_TASK_MAX_TTL_SECONDS = env.int("ATRIUM_MCP_TASK_MAX_TTL_SECONDS", 24 * 3600, min=60)
MCP_TASK_POLL_INTERVAL_MS = env.int("ATRIUM_MCP_TASK_POLL_INTERVAL_MS", 1000, min=100)
