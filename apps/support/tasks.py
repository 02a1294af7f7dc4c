"""Celery beat's Customer Service work, in every workspace: inbound mail into tickets, SLA
warnings, solved tickets closed. Only ids and counts are logged."""

from celery import shared_task

from apps.core.tasks import for_each_workspace
from apps.support.services import inbound, sla, tickets


@shared_task
def take_inbound_mail() -> int:
    return for_each_workspace(inbound.inbound_all)


@shared_task
def warn_sla() -> int:
    return for_each_workspace(sla.sla_warnings)


@shared_task
def close_solved() -> int:
    return for_each_workspace(tickets.close_solved)
