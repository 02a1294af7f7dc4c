"""Background work: Celery's broker, its queues, and the beat schedule of every periodic task."""

from celery.schedules import crontab
from kombu import Queue

from .gateway import GATEWAY_STUCK_SWEEP_SECONDS, GATEWAY_UNSENT_SWEEP_SECONDS, GATEWAY_WEBHOOK_SWEEP_SECONDS
from .services import REDIS_URL

CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_IGNORE_RESULT = True
# A task is acknowledged once it has run, and handed back if its worker dies mid-way.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# Celery logs through LOGGING (observability.py: request ids, JSON) instead of its own set-up.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Two queues. The gateway's agent turns (`run_conversation`, routed by name) wait in `agent`, so a
# backlog of turns never delays what everything else sends to the default queue `celery`
# (webhook deliveries, the sweepers, clean-ups, a task's agent step finishing). A worker consumes
# every queue below unless told otherwise (`--queues`, ATRIUM_WORKER_QUEUES in deploy/). Kombu's
# Redis transport polls a worker's queues with one BRPOP over all of them and moves the queue it
# just took a message from to the back of the list (`queue_order_strategy` "round_robin", its
# default since kombu#168, set here so that nobody changes it unknowingly; "priority" would starve
# the later queues): with a long `agent` queue, the next free pool process takes from `celery`
# first. `celery` keeps Celery's default name, so tasks queued before the split are still consumed.
# docs/deploy.md, "Queues".
CELERY_TASK_DEFAULT_QUEUE = "celery"
GATEWAY_AGENT_QUEUE = "agent"
CELERY_TASK_QUEUES = (Queue(CELERY_TASK_DEFAULT_QUEUE), Queue(GATEWAY_AGENT_QUEUE))
CELERY_TASK_ROUTES = {"apps.gateway.tasks.run_conversation": {"queue": GATEWAY_AGENT_QUEUE}}
CELERY_BROKER_TRANSPORT_OPTIONS = {"queue_order_strategy": "round_robin"}

# The periodic tasks of the service's own apps, in one dict; each workspace area declares its own
# with the area (apps.core.areas: `Area(periodic=...)`), and the kit adds them here at start-up.
CELERY_BEAT_SCHEDULE = {
    # apps.tenancy: the pool of spare workspace schemas, also refilled after each creation
    "fill-spare-schemas": {
        "task": "apps.tenancy.tasks.fill_spare_schemas",
        "schedule": crontab(minute="*/10"),
    },
    # apps.accounts
    "purge-expired-access-tokens": {
        "task": "apps.accounts.tasks.purge_expired_access_tokens",
        "schedule": crontab(minute=17, hour=3),
    },
    "sweep-step-up-codes": {
        "task": "apps.accounts.tasks.sweep_step_up_codes",
        "schedule": crontab(minute=29),
    },
    # apps.mcp
    "purge-mcp-sessions": {
        "task": "apps.mcp.tasks.purge_mcp_sessions",
        "schedule": crontab(minute=37, hour=3),
    },
    "purge-mcp-tasks": {
        "task": "apps.mcp.tasks.purge_mcp_tasks",
        "schedule": crontab(minute="*/15"),
    },
    # apps.datarights
    "retry-data-team-notifications": {
        "task": "apps.datarights.tasks.retry_data_team_notifications",
        "schedule": crontab(minute="*/5"),
    },
    # apps.social: scheduled posts whose time has come (or whose retry is due), delivered
    "social-deliver-due": {
        "task": "apps.social.tasks.deliver_due",
        "schedule": crontab(minute="*"),
    },
    # apps.catalogue
    "purge-old-tool-calls": {
        "task": "apps.catalogue.tasks.purge_old_tool_calls",
        "schedule": crontab(minute=41, hour=3),
    },
    # apps.oauth
    "sweep-oauth": {
        "task": "apps.oauth.tasks.sweep_oauth",
        "schedule": crontab(minute=23),
    },
    # apps.apikeys
    "release-stale-budget-reservations": {
        "task": "apps.apikeys.tasks.release_stale_reservations",
        "schedule": 60.0,
    },
    # apps.gateway
    "gateway-send-due-webhooks": {
        "task": "apps.gateway.tasks.send_due_webhooks",
        "schedule": GATEWAY_WEBHOOK_SWEEP_SECONDS,
    },
    "gateway-recover-stuck-conversations": {
        "task": "apps.gateway.tasks.recover_stuck_conversations",
        "schedule": GATEWAY_STUCK_SWEEP_SECONDS,
    },
    "gateway-send-unsent-conversations": {
        "task": "apps.gateway.tasks.send_unsent_conversations",
        "schedule": GATEWAY_UNSENT_SWEEP_SECONDS,
    },
    "gateway-remove-expired": {
        "task": "apps.gateway.tasks.remove_expired",
        "schedule": crontab(minute="*/5"),
    },
}
