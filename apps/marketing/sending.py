"""Who a campaign reaches, and sending it through the mail app.

`audience(actor, segment)`: the segment's contacts the actor may see with an address (one per
address), each reached or skipped with its reason: on the suppression list (unsubscribed, bounced,
complained: the mail app's, shared with Deals' reachout), no consent (none recorded, withdrawn, or
awaiting its double opt-in confirmation), or the frequency cap reached. previewSegmentContacts shows
it; `launch` keeps exactly it, one `Send` row per member (the snapshot: the segment changing later
changes nothing sent).

`run(campaign)` (Celery: at launch, then every minute from beat) sends the queued rows that are due,
each once: its outbox row is kept with the `Send` row in one transaction before anything goes
(apps.mail.sending), a row whose try failed goes again with the same Message-ID, one interrupted
while sending never again. A recipient in their quiet hours (their time zone: the contact's
`data.timeZone`, else the workspace's) waits for the hours' end; one suppressed, capped or whose
consent was withdrawn since the launch is skipped. A mail server that is down ends the run; the
next one resumes. Every message carries the RFC 8058 List-Unsubscribe headers, the link again in
its footer, and the postal address."""

import functools
import html
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.contacts import api as contacts_api
from apps.core import times
from apps.core.db import connection
from apps.core.errors import AppError, EmailNotSent
from apps.mail import api as mail
from apps.mail.api import Outgoing
from apps.marketing import segments, tracking
from apps.marketing.models import (
    Campaign,
    Consent,
    Enrollment,
    MarketingSettings,
    Segment,
    Send,
    StepSend,
)

logger = logging.getLogger(__name__)
State, Reason = Send.State, Send.Reason
BATCH = 500
SUPPRESSION_REASONS = {
    "unsubscribed": Reason.UNSUBSCRIBED,
    "bounced": Reason.BOUNCED,
    "complained": Reason.COMPLAINED,
}


def source_of(campaign_id: int) -> str:
    """What the suppression list says an unsubscribe came from."""
    return f"marketing.campaign:{campaign_id}"


@dataclass
class Member:
    contact_id: int
    email: str
    name: str
    first_name: str
    time_zone: str


@dataclass
class Audience:
    members: int
    reached: list[Member]
    skipped: list[tuple[Member, str]]


def zone_of(data: Any, fallback: str) -> str:
    name = data.get("timeZone") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name in times.known_zones() else fallback


def members(actor: Any, segment: Segment, settings: MarketingSettings) -> list[Member]:
    rows = (
        contacts_api.contacts(actor)
        .filter(segments.query(segment.rules, segment.match))
        .exclude(email="")
        .order_by("id")
        .values_list("id", "email", "first_name", "last_name", "organisation_name", "data")
    )
    found: dict[str, Member] = {}
    for pk, email, first, last, organisation, data in rows.iterator(chunk_size=2000):
        address = email.strip().lower()
        if address not in found:
            name = " ".join(part for part in (first, last) if part) or organisation
            found[address] = Member(pk, address, name, first, zone_of(data, settings.time_zone))
    return list(found.values())


def capped(emails: list[str], settings: MarketingSettings, *, besides: int | None = None) -> set[str]:
    """The addresses that got `frequency_cap` marketing e-mails (campaigns' and sequences') in the
    last `frequency_days` days."""
    since = timezone.now() - timedelta(days=settings.frequency_days)
    rows = Send.objects.filter(email__in=emails, state=State.SENT, sent_at__gte=since)
    if besides is not None:
        rows = rows.exclude(campaign_id=besides)
    counted: dict[str, int] = dict(
        rows.values_list("email").annotate(n=Count("id")).values_list("email", "n")
    )
    steps = StepSend.objects.filter(email__in=emails, state=StepSend.State.SENT, sent_at__gte=since)
    for email, n in steps.values_list("email").annotate(n=Count("id")).values_list("email", "n"):
        counted[email] = counted.get(email, 0) + n
    return {email for email, n in counted.items() if n >= settings.frequency_cap}


def audience(actor: Any, segment: Segment, *, campaign: Campaign | None = None) -> Audience:
    settings = MarketingSettings.current()
    found = members(actor, segment, settings)
    emails = [member.email for member in found]
    suppressed = mail.suppression_reasons(emails)
    consenting = set(
        Consent.objects.filter(
            contact_id__in=[member.contact_id for member in found], status=Consent.Status.GRANTED
        ).values_list("contact_id", flat=True)
    )
    over_cap = capped(emails, settings, besides=campaign.pk if campaign else None)
    reached: list[Member] = []
    skipped: list[tuple[Member, str]] = []
    for member in found:
        if member.email in suppressed:
            skipped.append((member, SUPPRESSION_REASONS.get(suppressed[member.email], Reason.SUPPRESSED)))
        elif member.contact_id not in consenting:
            skipped.append((member, Reason.NO_CONSENT))
        elif member.email in over_cap:
            skipped.append((member, Reason.CAP))
        else:
            reached.append(member)
    return Audience(members=len(found), reached=reached, skipped=skipped)


def snapshot(campaign: Campaign, found: Audience, now: datetime) -> None:
    """The launch's rows: one per member, queued or skipped with its reason."""
    rows = [
        Send(
            campaign=campaign,
            contact_id=member.contact_id,
            email=member.email,
            name=member.name[:200],
            time_zone=member.time_zone,
            due_at=now,
        )
        for member in found.reached
    ] + [
        Send(
            campaign=campaign,
            contact_id=member.contact_id,
            email=member.email,
            name=member.name[:200],
            time_zone=member.time_zone,
            state=State.SKIPPED,
            reason=reason,
        )
        for member, reason in found.skipped
    ]
    Send.objects.bulk_create(rows, batch_size=1000)


def run_later(campaign_id: int) -> None:
    """Queues a run on a worker; if the broker does not answer, beat's next sweep runs it."""
    from apps.marketing.tasks import run_campaign

    try:
        run_campaign.apply_async(kwargs={"campaign_id": campaign_id, "schema_name": connection.schema_name})
    except Exception:
        logger.exception("marketing campaign %s could not be queued; the sweep will run it", campaign_id)


def queue_run(campaign_id: int) -> None:
    transaction.on_commit(functools.partial(run_later, campaign_id))


# --- when a message may go ----------------------------------------------------------------------


def out_of_quiet(moment: datetime, zone_name: str, settings: MarketingSettings) -> datetime:
    """`moment`, or the end of the quiet hours it falls in, in the zone's local time."""
    start, end = settings.quiet_start, settings.quiet_end
    if start == end:
        return moment
    local = moment.astimezone(ZoneInfo(zone_name or settings.time_zone))
    hour = local.hour
    quiet = (start <= hour or hour < end) if start > end else (start <= hour < end)
    if not quiet:
        return moment
    ends = local.replace(hour=end, minute=0, second=0, microsecond=0)
    if ends <= local:
        ends += timedelta(days=1)
    return ends.astimezone(moment.tzinfo)


# --- the message --------------------------------------------------------------------------------


def personal(text: str, send: Send | Enrollment) -> str:
    first = send.name.split(" ")[0] if send.name else ""
    return text.replace("{first_name}", first or _("there")).replace("{name}", send.name or _("there"))


def footer(settings: MarketingSettings, unsubscribe: str) -> str:
    return "\n\n--\n{address}\n{words} {url}".format(
        address=settings.postal_address.strip(),
        words=_("You get this because you agreed to hear from us. Unsubscribe with one click:"),
        url=unsubscribe,
    )


def html_of(text: str, send_id: int, *, step: bool = False) -> str:
    """The text as HTML paragraphs (links kept as links) with the open pixel."""
    paragraphs = []
    for block in text.split("\n\n"):
        escaped = html.escape(block)
        escaped = tracking.LINK.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>', escaped)
        paragraphs.append("<p>" + escaped.replace("\n", "<br>") + "</p>")
    pixel = f'<img src="{html.escape(tracking.open_url(send_id, step=step))}" width="1" height="1" alt="">'
    return "<!doctype html><html><body>" + "".join(paragraphs) + pixel + "</body></html>"


def _deliver(campaign: Campaign, send: Send, settings: MarketingSettings) -> Outgoing | None:
    """Sends `send` once; its outbox row, or None when another process has it."""
    mailbox = campaign.mailbox
    assert mailbox is not None
    if send.outgoing_id is not None:
        row = Outgoing.objects.get(pk=send.outgoing_id)
        if row.status in (Outgoing.Status.QUEUED, Outgoing.Status.FAILED):
            return mail.outbox_send(row)  # the same Message-ID
        return row if row.status == Outgoing.Status.SENT else None
    headers = mail.unsubscribe_headers(send.email, source=source_of(campaign.pk))
    unsubscribe = headers["List-Unsubscribe"].strip("<>")
    text = tracking.tracked(personal(campaign.body, send), send.pk) + footer(settings, unsubscribe)

    def keep(row: Outgoing) -> None:
        claimed = Send.objects.filter(pk=send.pk, outgoing__isnull=True).update(
            outgoing=row, message_id=row.message_id
        )
        if not claimed:
            raise IntegrityError("another run queued this recipient")

    try:
        return mail.letter_send(
            mailbox=mailbox,
            to=send.email,
            subject=personal(campaign.subject, send),
            text=text,
            html=html_of(text, send.pk),
            headers=headers,
            on_queued=keep,
        )
    except IntegrityError:
        return None


def still_sending(campaign_id: int) -> bool:
    return Campaign.objects.filter(
        pk=campaign_id, status=Campaign.Status.SENDING, deleted_at__isnull=True
    ).exists()


def consents(contact_id: int | None) -> bool:
    """Whether the contact's consent stands now: withdrawn (or never confirmed) since the launch, or
    the contact archived, their message does not go."""
    return (
        contact_id is not None
        and Consent.objects.filter(
            contact_id=contact_id, status=Consent.Status.GRANTED, contact__deleted_at__isnull=True
        ).exists()
    )


def run(campaign: Campaign, *, now: datetime | None = None, batch: int = BATCH) -> int:
    """One run of a sending campaign; how many messages went."""
    if campaign.status != Campaign.Status.SENDING or campaign.deleted_at is not None:
        return 0
    if campaign.mailbox is None:
        Campaign.objects.filter(pk=campaign.pk).update(status=Campaign.Status.PAUSED)
        logger.info("marketing campaign %s paused: its mailbox is gone", campaign.pk)
        return 0
    now = now or timezone.now()
    settings = MarketingSettings.current()
    sent = 0
    due = campaign.sends.filter(state=State.QUEUED, due_at__lte=now).order_by("id")[:batch]
    for send in due:
        if not still_sending(campaign.pk):  # paused or deleted while this run was on its way
            break
        later = out_of_quiet(now, send.time_zone, settings)
        if later > now:
            Send.objects.filter(pk=send.pk).update(due_at=later)
            continue
        if send.outgoing_id is None:
            reason = mail.suppression_reasons([send.email]).get(send.email)
            if reason is None and not consents(send.contact_id):
                reason = Reason.NO_CONSENT
            if reason is None and send.email in capped([send.email], settings, besides=campaign.pk):
                reason = Reason.CAP
            if reason is not None:
                Send.objects.filter(pk=send.pk).update(
                    state=State.SKIPPED, reason=SUPPRESSION_REASONS.get(reason, reason)
                )
                continue
        try:
            row = _deliver(campaign, send, settings)
        except EmailNotSent:
            Send.objects.filter(pk=send.pk).update(state=State.FAILED)
            mail.suppress(send.email, reason="bounced", source=source_of(campaign.pk))
            continue
        except mail.SERVER_PROBLEMS as error:
            logger.warning(
                "marketing campaign %s: mail server problem (%s); resumed next run", campaign.pk, error.code
            )
            break
        except AppError as error:
            logger.warning("marketing send %s not sent (%s)", send.pk, error.code)
            Send.objects.filter(pk=send.pk).update(state=State.FAILED)
            continue
        if row is not None and row.status == Outgoing.Status.SENT:
            Send.objects.filter(pk=send.pk).update(state=State.SENT, sent_at=row.sent_at or now)
            sent += 1
    if not campaign.sends.filter(state=State.QUEUED).exists():
        Campaign.objects.filter(pk=campaign.pk, status=Campaign.Status.SENDING).update(
            status=Campaign.Status.SENT, finished_at=timezone.now()
        )
    return sent


def run_sending() -> int:
    """Celery beat: a run of every sending campaign of the workspace."""
    sent = 0
    for campaign in Campaign.objects.filter(
        status=Campaign.Status.SENDING, deleted_at__isnull=True
    ).select_related("mailbox"):
        sent += run(campaign)
    return sent
