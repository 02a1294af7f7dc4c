"""The gateway's Celery tasks: thin doors onto the services. Tasks take ids and the schema name
(`workspace_task`); the sweepers visit every workspace (`for_each_workspace`), or those
marked as having work of their kind (`for_each_marked`). `run_conversation`
goes to the agent's own queue (settings CELERY_TASK_ROUTES), everything else to the default one,
so sweeps and webhook deliveries never wait behind a backlog of agent turns."""

from celery import shared_task

from apps.core.tasks import for_each_marked, for_each_workspace, mark_pending, workspace_task
from apps.gateway import backlog, deliveries, services
from apps.gateway.agent import runner


@workspace_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_conversation(*, conversation_id: int) -> str | None:
    """The service's agent on one conversation. Late acknowledgement: a worker that dies mid-turn
    leaves the message to be delivered again; the conversation's lease and the sweeper below make
    sure it is run again (once) or failed, never left `processing`."""
    return runner.run_conversation(conversation_id)


@workspace_task(acks_late=True, ignore_result=True)
def deliver_webhook(*, delivery_id: int) -> str | None:
    return deliveries.attempt(delivery_id)


@shared_task(ignore_result=True)
def send_due_webhooks() -> int:
    """Every few seconds: queue the webhook attempts that are due, in the workspaces with
    deliveries in flight (an idle workspace costs nothing)."""

    def send() -> bool:
        deliveries.send_due()
        return deliveries.in_flight()

    return for_each_marked(deliveries.IN_FLIGHT, send)


@shared_task(ignore_result=True)
def recover_stuck_conversations() -> int:
    """Every 30 seconds: conversations whose worker died are queued again or failed; those whose
    queued turn was lost are queued again (the agent's queue is read once for every workspace)."""
    waiting = backlog.read()

    def recover() -> None:
        services.conversations_recover(waiting=waiting)
        # Should a workspace's mark be missing (its writing failed, or it predates the marks), the
        # unsent turns go now and the deliveries in flight get their sweep back.
        services.conversations_send_unsent()
        if deliveries.in_flight():
            mark_pending(deliveries.IN_FLIGHT)

    return for_each_workspace(recover)


@shared_task(ignore_result=True)
def send_unsent_conversations() -> int:
    """Every few seconds: conversations whose task could not be sent (the broker was down) are
    sent now, in the workspaces that have some (an idle workspace costs nothing)."""

    def send() -> bool:
        return services.conversations_send_unsent() >= services.UNSENT_BATCH

    return for_each_marked(services.UNSENT, send)


@shared_task(ignore_result=True)
def remove_expired() -> int:
    """Every 5 minutes: conversations past their 24 hours, and deliveries past their retention."""

    def sweep() -> None:
        services.conversations_remove_expired()
        deliveries.remove_old()

    return for_each_workspace(sweep)
