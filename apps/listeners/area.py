"""The Listeners area, as the rest of the service knows it (apps.core.areas): automations that run
catalogue tools on their own when a record changes, on a schedule, or when a webhook arrives."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.listeners import events  # noqa: F401  (connects the record events)
from apps.listeners.permissions import ListenersPerm

area = areas.declare(
    title=_("Listeners"),
    group=areas.Group.AUTOMATION,
    description=_("Automations: when a record changes, on a schedule or a webhook, run tools as their owner"),
    words="automation automate listener trigger workflow zap when then flow run webhook schedule cron",
    hints={
        "createListener": "automate: when a record event, schedule or webhook happens do a flow of steps",
        "getListener": "show one automation listener: its trigger, flow steps, approvals, webhook",
        "updateListener": "change an automation listener's name trigger filter schedule",
        "updateListenerFlow": "change the steps actions of an automation listener's flow workflow",
        "listListeners": "list my automations listeners workflows zaps, which are active paused",
        "activateListener": "turn on activate resume an automation listener, approve its risky steps",
        "pauseListener": "pause stop for now an automation listener, temporarily",
        "disableListener": "disable switch off for good an automation listener",
        "triggerListener": "run an automation listener now by hand, test fire it",
        "getListenerRuns": "automation listener runs history executions: what it did, failed runs errors",
        "cancelListenerRun": "cancel stop a queued running automation listener run execution",
        "getListenerHelp": "how automations listeners work: triggers, steps, templates, conditions",
        "searchEntities": "find record ids of any kind for an automation listener's flow or trigger",
    },
    profiles={
        "listeners": (
            "getListenerHelp",
            "createListener",
            "getListener",
            "updateListener",
            "updateListenerFlow",
            "listListeners",
            "activateListener",
            "pauseListener",
            "disableListener",
            "triggerListener",
            "getListenerRuns",
            "cancelListenerRun",
            "searchEntities",
        ),
    },
    nav=[NavItem("listeners", _("Automations"), "listeners:automations", ListenersPerm.VIEW, order=10)],
    kinds=[
        Kind(
            "listener",
            "listeners.Listener",
            title="name",
            url=page("listeners:automations", anchor="listener-"),
            search=("name", "description"),
            named=_("Automation"),
        )
    ],
    periodic={
        # Scheduled listeners fired when due; runs a worker lost resumed or failed; due runs queued.
        "listeners-minute": areas.Periodic("apps.listeners.tasks.tick", 60.0),
    },
    settings={
        # A run caused by this many runs before it (a flow that triggers itself) is stopped.
        "ATRIUM_LISTENERS_MAX_DEPTH": env.int("ATRIUM_LISTENERS_MAX_DEPTH", 3, min=1),
        # Attempts of a run whose step failed on the server, before it is dead.
        "ATRIUM_LISTENERS_MAX_ATTEMPTS": env.int("ATRIUM_LISTENERS_MAX_ATTEMPTS", 4, min=1),
        # The first retry's wait in seconds, doubled at each attempt.
        "ATRIUM_LISTENERS_RETRY_SECONDS": env.int("ATRIUM_LISTENERS_RETRY_SECONDS", 30, min=1),
        # Runs at once in one workspace, whatever the listeners.
        "ATRIUM_LISTENERS_WORKSPACE_CONCURRENCY": env.int("ATRIUM_LISTENERS_WORKSPACE_CONCURRENCY", 4, min=1),
        # A running run without a sign of life for this long was lost with its worker.
        "ATRIUM_LISTENERS_STALE_SECONDS": env.int("ATRIUM_LISTENERS_STALE_SECONDS", 600, min=30),
    },
)
