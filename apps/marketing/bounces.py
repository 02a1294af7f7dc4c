"""Bounces and complaints that come back after a message went: the mail app reads delivery reports
on a mailbox's IMAP side (RFC 3464 DSNs, RFC 5965 abuse reports: apps.mail.reports) and hands each
to `received` (registered in apps.marketing.area through `apps.mail.api.on_delivery_report`).

The sent message is found by the original's Message-ID (a campaign's `Send` or a sequence's
`StepSend` keeps it), else by the original's signed List-Unsubscribe link (its address and the
campaign or sequence it came from). Then, on the one suppression list with the campaign or the
sequence as its source (so their figures count it):

- a complaint: `complained`;
- a permanent bounce (5.x.x): `bounced`;
- a transient one (4.x.x, or `Action: delayed`): counted on the message (`reported`), and the
  address is suppressed as `bounced` once `SOFT_BOUNCE_LIMIT` of its marketing messages bounced
  so (as Mailchimp turns repeated soft bounces into a hard one).

A report about mail that is not Marketing's changes nothing; a second report about the same
message counts once."""

import logging

from django.conf import settings

from apps.mail import api as mail
from apps.marketing import sending, sequences
from apps.marketing.models import Reported, Send, StepSend

logger = logging.getLogger(__name__)


def soft_bounce_limit() -> int:
    return int(getattr(settings, "ATRIUM_MARKETING_SOFT_BOUNCES", 3))


def _sent(report: mail.DeliveryReport, address: str) -> tuple[Send | StepSend, str] | None:
    """The marketing message the report is about, with its source on the suppression list."""
    if report.message_ids:
        send = Send.objects.filter(message_id__in=report.message_ids, email=address).first()
        if send is not None:
            return send, sending.source_of(send.campaign_id)
        step = (
            StepSend.objects.filter(message_id__in=report.message_ids, email=address)
            .select_related("enrollment")
            .first()
        )
        if step is not None:
            return step, sequences.source_of(step.enrollment.sequence_id)
    link = report.unsubscribe
    if link is None or link["a"] != address:
        return None
    kind, _, number = link["src"].partition(":")
    if not number.isdigit():
        return None
    if kind == "marketing.campaign":
        send = Send.objects.filter(campaign_id=int(number), email=address).first()
        return (send, link["src"]) if send is not None else None
    if kind == "marketing.sequence":
        step = (
            StepSend.objects.filter(enrollment__sequence_id=int(number), email=address)
            .exclude(state=StepSend.State.SKIPPED)
            .order_by("-sent_at", "-id")
            .first()
        )
        return (step, link["src"]) if step is not None else None
    return None


def _soft_bounces(address: str) -> int:
    return (
        Send.objects.filter(email=address, reported=Reported.SOFT_BOUNCE).count()
        + StepSend.objects.filter(email=address, reported=Reported.SOFT_BOUNCE).count()
    )


def received(report: mail.DeliveryReport) -> None:
    for failure in report.failures:
        found = _sent(report, failure.address)
        if found is None:
            continue
        row, source = found
        if report.kind == mail.COMPLAINT:
            reported, reason = Reported.COMPLAINT, "complained"
        elif failure.permanent:
            reported, reason = Reported.HARD_BOUNCE, "bounced"
        else:
            reported, reason = Reported.SOFT_BOUNCE, ""
        if row.reported and (row.reported != Reported.SOFT_BOUNCE or reported == Reported.SOFT_BOUNCE):
            continue  # reported already (a soft bounce may still turn hard, or a complaint)
        type(row).objects.filter(pk=row.pk).update(reported=reported)
        if not reason and _soft_bounces(failure.address) >= soft_bounce_limit():
            reason = "bounced"
        if reason:
            mail.suppress(failure.address, reason=reason, source=source)
        logger.info("marketing %s %s: %s reported", type(row).__name__, row.pk, reported)
