"""The message gateway (apps.gateway; SPEC 1 rule 3, 2.1, 3.1, 3.2, 4.4, 6.1, 8; docs/gateway.md):
the request, the service's agent and its model, leases and sweepers, webhook deliveries.
Its queue and its periodic tasks are in celery.py."""

from apps.core import env

# The request (SPEC 4.4, 8): message length in characters, metadata size as compact JSON in bytes.
GATEWAY_MESSAGE_MAX_CHARS = 10_000
GATEWAY_METADATA_MAX_BYTES = env.int("ATRIUM_GATEWAY_METADATA_MAX_BYTES", 16384, min=0)
# Conversations are removed this long after creation (SPEC 3.1: 24 hours).
GATEWAY_CONVERSATION_TTL_HOURS = 24
# The poll's Retry-After while a conversation is unfinished.
GATEWAY_POLL_RETRY_AFTER_SECONDS = env.int("ATRIUM_GATEWAY_POLL_RETRY_AFTER_SECONDS", 1, min=0)

# --- the service's agent and its model ----------------------------------------------------------

# The service's agent. "" (default): the built-in agent, which needs no model and handles simple
# single-tool requests. "openai": an OpenAI-compatible chat-completions API with tool calling
# (also vLLM, Ollama, llama.cpp's server, LiteLLM, OpenRouter); "anthropic": the Anthropic
# Messages API. URL: the API's base ("https://host/v1" for chat completions, "https://host" for
# Messages). Prices per model, JSON: {"<model>": {"input": USD per million input tokens, "output":
# ..., "cache_read": ..., "cache_write": ...}}; a configured model without a price is refused.
GATEWAY_MODEL_BACKEND = env.str("ATRIUM_GATEWAY_MODEL_BACKEND", "")
GATEWAY_MODEL_URL = env.str("ATRIUM_GATEWAY_MODEL_URL", "")
GATEWAY_MODEL_API_KEY = env.str("ATRIUM_GATEWAY_MODEL_API_KEY", "")
GATEWAY_MODEL_NAME = env.str("ATRIUM_GATEWAY_MODEL_NAME", "")
GATEWAY_MODEL_PRICES = env.json("ATRIUM_GATEWAY_MODEL_PRICES", {}, expect=dict, empty={})
GATEWAY_MODEL_MAX_TOKENS = env.int("ATRIUM_GATEWAY_MODEL_MAX_TOKENS", 1024, min=1)
GATEWAY_MODEL_TIMEOUT_SECONDS = env.float("ATRIUM_GATEWAY_MODEL_TIMEOUT_SECONDS", 60.0, min=0)
# The time-out bounds each network operation of a model call; the deadline the whole call (connect,
# send, the entire answer, however slowly it comes). 0 (or empty): the same as the time-out.
GATEWAY_MODEL_DEADLINE_SECONDS = env.float("ATRIUM_GATEWAY_MODEL_DEADLINE_SECONDS", 0.0, min=0, empty=0.0)
# The models of Platform's media tools, on the same backend and priced in GATEWAY_MODEL_PRICES:
# analyzeImage asks the vision model ("": GATEWAY_MODEL_NAME, which must see images);
# transcribeAudio the transcription model of an "openai" backend (`POST {url}/audio/transcriptions`,
# e.g. whisper-1 or gpt-4o-transcribe; "": transcribeAudio says none is configured).
GATEWAY_MODEL_VISION_NAME = env.str("ATRIUM_GATEWAY_MODEL_VISION_NAME", "")
GATEWAY_MODEL_TRANSCRIPTION_NAME = env.str("ATRIUM_GATEWAY_MODEL_TRANSCRIPTION_NAME", "")
# The image model of an "openai" backend (`POST {url}/images/generations`, e.g. gpt-image-1), priced in
# GATEWAY_MODEL_PRICES per token like the others ("": the Blog's image tools say none is configured).
GATEWAY_MODEL_IMAGE_NAME = env.str("ATRIUM_GATEWAY_MODEL_IMAGE_NAME", "")
# A model call that fails transiently (429, 5xx, time-out) is tried again this many times.
GATEWAY_MODEL_RETRIES = env.int("ATRIUM_GATEWAY_MODEL_RETRIES", 2, min=0)
GATEWAY_MODEL_RETRY_BASE_SECONDS = env.float("ATRIUM_GATEWAY_MODEL_RETRY_BASE_SECONDS", 1.0, min=0)
# Model calls per conversation at most (the last one is asked to answer without tools).
GATEWAY_AGENT_MAX_MODEL_CALLS = env.int("ATRIUM_GATEWAY_AGENT_MAX_MODEL_CALLS", 8, min=1)
# How many catalogue tools are offered to the model per conversation (besides searchTools and
# describeTool, through which it finds the rest).
GATEWAY_AGENT_OFFERED_TOOLS = env.int("ATRIUM_GATEWAY_AGENT_OFFERED_TOOLS", 12, min=0)

# --- runs, leases, sweepers ---------------------------------------------------------------------

# Runs of one conversation (a worker that died, an unexpected error) before it is failed.
GATEWAY_AGENT_MAX_ATTEMPTS = env.int("ATRIUM_GATEWAY_AGENT_MAX_ATTEMPTS", 3, min=1)
# A worker's lease on a conversation lasts this long past each step's own time limit.
GATEWAY_LEASE_MARGIN_SECONDS = env.float("ATRIUM_GATEWAY_LEASE_MARGIN_SECONDS", 30.0, min=0)
# An open conversation whose turn is not waiting in the agent's queue is queued again: one sent
# this long before the oldest turn still waiting there (or before now, when none waits) was lost
# (apps.gateway.backlog). A turn waiting behind a backlog, however long, is never queued twice.
GATEWAY_REQUEUE_AFTER_SECONDS = env.int("ATRIUM_GATEWAY_REQUEUE_AFTER_SECONDS", 120, min=0)
# How often conversations whose task could not be sent (the broker was down) are sent again.
GATEWAY_UNSENT_SWEEP_SECONDS = env.float("ATRIUM_GATEWAY_UNSENT_SWEEP_SECONDS", 5.0, min=0)
# How often due webhook deliveries are sent, and conversations whose worker died are recovered.
GATEWAY_WEBHOOK_SWEEP_SECONDS = env.float("ATRIUM_GATEWAY_WEBHOOK_SWEEP_SECONDS", 5.0, min=0)
GATEWAY_STUCK_SWEEP_SECONDS = env.float("ATRIUM_GATEWAY_STUCK_SWEEP_SECONDS", 30.0, min=0)

# --- webhook deliveries -------------------------------------------------------------------------

# Delays in seconds after each failed attempt (Standard Webhooks' schedule, about 27.6 hours in
# all), each stretched or shrunk by up to GATEWAY_WEBHOOK_JITTER (a fraction), so retries span
# more than 24 hours. Time limits per attempt, and how much of an answer is kept in the log.
GATEWAY_WEBHOOK_RETRY_SCHEDULE = env.int_list(
    "ATRIUM_GATEWAY_WEBHOOK_RETRY_SCHEDULE", [5, 300, 1800, 7200, 18000, 36000, 36000], min=0
)
GATEWAY_WEBHOOK_JITTER = env.float("ATRIUM_GATEWAY_WEBHOOK_JITTER", 0.1, min=0, max=1)
GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS = env.float(
    "ATRIUM_GATEWAY_WEBHOOK_CONNECT_TIMEOUT_SECONDS", 5.0, min=0
)
GATEWAY_WEBHOOK_TIMEOUT_SECONDS = env.float("ATRIUM_GATEWAY_WEBHOOK_TIMEOUT_SECONDS", 10.0, min=0)
# How much of a receiver's answer each attempt keeps (characters), shown on the key's page.
GATEWAY_WEBHOOK_RESPONSE_EXCERPT = 4096
# Deliveries (with their log and body) are kept this long, then removed.
GATEWAY_WEBHOOK_RETENTION_DAYS = env.int("ATRIUM_GATEWAY_WEBHOOK_RETENTION_DAYS", 7, min=0)
