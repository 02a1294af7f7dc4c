"""Reachout campaigns (writes and the sequence engine).

A campaign is written as a draft (steps, recipients, send window, mailbox), started, paused,
resumed or stopped (`campaign_control`). Celery runs `campaign_tick` for each running campaign
(apps.deals.tasks: at start, and every minute from beat), which:

1. synchronises the campaign's mailbox, then stops the sequence of every recipient who replied
   (a message threaded to one we sent them), bounced (a delivery report naming one), or is on the
   mail app's suppression list (unsubscribed through the one-click link, or bounced elsewhere);
2. sends each due step (inside the recipient's send window, in their time zone) while the
   mailbox has sent fewer than the campaign's `daily_cap` campaign messages in 24 hours.

A step is sent once: its `CampaignMessage` is made in the transaction that keeps its outbox row,
before anything is sent (a second process making the same one fails on the unique constraint
and sends nothing); a failed send is tried again with the same Message-ID; one whose process died
while sending is never sent again (the mail app's outbox). Every message carries the RFC 8058
List-Unsubscribe headers and a visible unsubscribe link (the mail app's suppression list)."""

import functools
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.contacts import api as contacts_api
from apps.core import clean
from apps.core.actors import Actor, require
from apps.core.db import connection
from apps.core.errors import AppError, EmailNotSent, invalid
from apps.core.records import derived_visibility, unique_name
from apps.core.sharing import Visibility
from apps.core.workspaces import current_workspace
from apps.deals.errors import WrongCampaignState
from apps.deals.models import (
    CampaignMessage,
    CampaignRecipient,
    CampaignStep,
    DealFinder,
    FoundLead,
    ReachoutCampaign,
)
from apps.deals.permissions import DealsPerm
from apps.mail import api as mail
from apps.mail.api import Mailbox, Message, Outgoing

logger = logging.getLogger(__name__)
State = CampaignRecipient.State
Status = ReachoutCampaign.Status
MAX_RECIPIENTS = 1000
BOUNCE_SENDERS = ("mailer-daemon@", "postmaster@")
BOUNCE_SUBJECTS = ("undeliver", "delivery status", "delivery failure", "returned mail", "failure notice")
# A delivery notice that is only a warning: Gmail's "Delivery Status Notification (Delay)",
# Postfix's "Delayed Mail (still being retried)", Exim's "Warning: message ... delayed 24 hours".
DELAY_WORDS = ("delay", "warning")
STILL_TRYING = re.compile(
    r"^\s*action:\s*delayed\b|\bwill (?:retry|keep trying)\b|\bstill being retried\b|\btemporary problem\b",
    re.IGNORECASE | re.MULTILINE,
)
FAILED_FOR_GOOD = re.compile(r"^\s*action:\s*failed\b", re.IGNORECASE | re.MULTILINE)
# The parts a standard delivery report carries (apps.mail.reports reads them).
STANDARD_REPORTS = ("message/delivery-status", "message/feedback-report")


@functools.cache
def country_zones() -> dict[str, str]:
    """The first (most populous) zone of each country, from the zone database's zone.tab."""
    found: dict[str, str] = {}
    text = resources.files("tzdata").joinpath("zoneinfo", "zone.tab").read_text()
    for line in text.splitlines():
        if line and not line.startswith("#"):
            parts = line.split("\t")
            if len(parts) >= 3:
                found.setdefault(parts[0].upper(), parts[2])
    return found


def _workspace_zone() -> str:
    workspace = current_workspace()
    return str(getattr(workspace, "time_zone", "") or settings.TIME_ZONE)


# --- writing a campaign ------------------------------------------------------------------------


@dataclass
class Step:
    subject: str
    body: str
    delay_days: int = 0


def _recipient_rows(
    actor: Actor, *, contact_ids: list[int], finder: DealFinder | None, emails: list[str]
) -> list[CampaignRecipient]:
    rows: dict[str, CampaignRecipient] = {}

    def add(email: str, **fields: Any) -> None:
        if email and email.lower() not in rows:
            rows[email.lower()] = CampaignRecipient(email=email.lower(), **fields)

    if contact_ids:
        contacts = {c.pk: c for c in contacts_api.contacts(actor).filter(pk__in=contact_ids)}
        for contact_id in contact_ids:
            contact = contacts.get(contact_id)
            if contact is None:
                raise contacts_api.not_found(contact_id)
            if not contact.email:
                raise invalid(
                    "contactIds", _("contact {contact_id} has no e-mail address"), contact_id=contact_id
                )
            add(
                mail.address(contact.email, field="contactIds"),
                name=contact.display_name[:200],
                contact=contact,
                time_zone=country_zones().get(contact.country.upper(), ""),
            )
    if finder is not None:
        leads = (
            FoundLead.objects.filter(finder=finder)
            .exclude(status=FoundLead.Status.DISMISSED)
            .exclude(email="")
        )
        for lead in leads[:MAX_RECIPIENTS]:
            add(
                lead.email,
                name=lead.name,
                contact=lead.contact,
                time_zone=country_zones().get(lead.country, ""),
            )
    for value in emails:
        add(mail.address(value, field="emails"))
    if not rows:
        raise invalid("recipients", _("give contactIds, a finderId whose leads have addresses, or emails"))
    if len(rows) > MAX_RECIPIENTS:
        raise invalid("recipients", _("at most {most} recipients a campaign"), most=MAX_RECIPIENTS)
    return list(rows.values())


def campaign_create(
    *,
    actor: Actor,
    name: str,
    mailbox: Mailbox,
    steps: list[Step],
    contact_ids: list[int] = [],  # noqa: B006  (never changed)
    finder: DealFinder | None = None,
    emails: list[str] = [],  # noqa: B006
    window: tuple[int, int] = (9, 17),
    weekdays: list[int] | None = None,
    time_zone: str = "",
    daily_cap: int = 50,
    private: bool = False,
) -> ReachoutCampaign:
    """A draft campaign: nothing is sent until it is started (controlReachoutCampaign); private
    when asked, or when any recipient comes from a private contact or finder (`derived_visibility`)."""
    require(actor, DealsPerm.CAMPAIGNS)
    if not steps:
        raise invalid("steps", _("give at least one step"))
    start, end = window
    if not 0 <= start < end <= 24:
        raise invalid("sendWindow", _("the window opens before it closes, in hours 0 to 24"))
    days = sorted(set(weekdays or [1, 2, 3, 4, 5]))
    if not all(1 <= day <= 7 for day in days):
        raise invalid("weekdays", _("ISO weekdays: 1 (Monday) to 7 (Sunday)"))
    campaign = ReachoutCampaign(
        owner=person(actor),
        created_by=person(actor),
        mailbox=mailbox,
        window_start=start,
        window_end=end,
        weekdays=days,
        time_zone=clean.zone(time_zone or _workspace_zone()),
        daily_cap=daily_cap,
        visibility=Visibility.PRIVATE if private else Visibility.WORKSPACE,
    )
    campaign.name = unique_name(campaign, name, what="a campaign", limit=120)
    recipients = _recipient_rows(actor, contact_ids=contact_ids, finder=finder, emails=emails)
    # Its recipients are shown to whoever sees it: to a private contact (or a private finder's
    # leads), it is as private as they are.
    sources = [finder, *(row.contact for row in recipients if row.contact is not None)]
    if derived_visibility(*(source for source in sources if source is not None)) == Visibility.PRIVATE:
        campaign.visibility = Visibility.PRIVATE
    campaign.save()
    for position, step in enumerate(steps, start=1):
        if not step.subject.strip() or not step.body.strip():
            raise invalid("steps", _("step {position} needs a subject and a body"), position=position)
        CampaignStep.objects.create(
            campaign=campaign,
            position=position,
            delay_days=0 if position == 1 else step.delay_days,
            subject=" ".join(step.subject.split()),
            body=step.body.strip(),
        )
    for row in recipients:
        row.campaign = campaign
    CampaignRecipient.objects.bulk_create(recipients)
    logger.info("campaign %s created with %s recipients", campaign.pk, len(recipients))
    return campaign


def campaign_control(*, actor: Actor, campaign: ReachoutCampaign, action: str) -> ReachoutCampaign:
    """start (a draft), pause, resume or stop (for good). Starting and resuming queue a run."""
    require(actor, DealsPerm.CAMPAIGNS)
    allowed = {
        "start": (Status.DRAFT,),
        "pause": (Status.RUNNING,),
        "resume": (Status.PAUSED,),
        "stop": (Status.DRAFT, Status.RUNNING, Status.PAUSED),
    }[action]
    if campaign.status not in allowed:
        raise WrongCampaignState(campaign=campaign.pk, status=campaign.status, action=action)
    now = timezone.now()
    if action == "start":
        if campaign.mailbox is None or campaign.mailbox.deleted_at is not None:
            raise invalid("inboxId", _("the campaign's mailbox was removed"))
        campaign.started_at = now
        campaign.recipients.filter(state=State.ACTIVE).update(next_due_at=now)
    campaign.status = {"start": Status.RUNNING, "pause": Status.PAUSED, "resume": Status.RUNNING}.get(
        action, Status.STOPPED
    )
    if action == "stop":
        campaign.finished_at = now
    campaign.save(update_fields=["status", "started_at", "finished_at", "updated_at"])
    if campaign.status == Status.RUNNING:
        transaction.on_commit(functools.partial(run_later, campaign.pk))
    logger.info("campaign %s: %s", campaign.pk, action)
    return campaign


def run_later(campaign_id: int) -> None:
    """Queues a run on a worker; if the broker does not answer, beat's next sweep runs it."""
    from apps.deals.tasks import run_campaign

    try:
        run_campaign.apply_async(kwargs={"campaign_id": campaign_id, "schema_name": connection.schema_name})
    except Exception:
        logger.exception("campaign %s could not be queued; the sweep will run it", campaign_id)


# --- when a step is due ------------------------------------------------------------------------


def zone_of(campaign: ReachoutCampaign, recipient: CampaignRecipient) -> ZoneInfo:
    return ZoneInfo(recipient.time_zone or campaign.time_zone)


def in_window(campaign: ReachoutCampaign, recipient: CampaignRecipient, moment: datetime) -> datetime:
    """The first moment at or after `moment` inside the campaign's send window, in the
    recipient's time zone."""
    local = moment.astimezone(zone_of(campaign, recipient))
    for _day in range(8):
        opens = local.replace(hour=campaign.window_start, minute=0, second=0, microsecond=0)
        closes = opens + timedelta(hours=campaign.window_end - campaign.window_start)
        if local.isoweekday() in campaign.weekdays and local < closes:
            return max(local, opens).astimezone(UTC)
        local = (opens + timedelta(days=1)).replace(hour=0)
    raise invalid("weekdays", _("the send window has no day"))


def sent_today(mailbox_id: int) -> int:
    since = timezone.now() - timedelta(hours=24)
    return CampaignMessage.objects.filter(mailbox_id=mailbox_id, created_at__gte=since).count()


# --- stopping on replies, bounces and unsubscribes ------------------------------------------------


def _failure_notice(message: Message) -> str | None:
    """What a received message says of a campaign's delivery: "bounced" (it failed for good),
    "not_a_reply" (nothing for the sequence to do here), or None (not a delivery notice).

    Not a reply: a report in the standard formats (an RFC 3464 DSN, an RFC 5965 complaint), which
    the mail app reads by its Action and Status and hands to `report_received`; and a warning that
    the sending server is still trying (a delay). Other notices are read by their sender and words."""
    if any(part.get("type") in STANDARD_REPORTS for part in message.attachments):
        return "not_a_reply"
    subject = message.subject.lower()
    if not (
        message.from_address.startswith(BOUNCE_SENDERS) or any(word in subject for word in BOUNCE_SUBJECTS)
    ):
        return None
    if FAILED_FOR_GOOD.search(message.text):
        return "bounced"
    if any(word in subject for word in DELAY_WORDS) or STILL_TRYING.search(message.text):
        return "not_a_reply"
    return "bounced"


def _stop(recipient: CampaignRecipient, state: str) -> None:
    CampaignRecipient.objects.filter(pk=recipient.pk, state=State.ACTIVE).update(
        state=state, next_due_at=None, stopped_at=timezone.now()
    )
    logger.info("campaign recipient %s stopped: %s", recipient.pk, state)


def _reported(report: mail.DeliveryReport, address: str) -> CampaignRecipient | None:
    """The recipient a delivery report is about: by the original's Message-ID, else by its signed
    List-Unsubscribe link (the address and the campaign it was sent for)."""
    found = (
        CampaignRecipient.objects.filter(messages__message_id__in=report.message_ids, email=address).first()
        if report.message_ids
        else None
    )
    link = report.unsubscribe
    if found is None and link is not None and link["a"] == address:
        kind, _sep, number = link["src"].partition(":")
        if kind == "deals.campaign" and number.isdigit():
            found = CampaignRecipient.objects.filter(campaign_id=int(number), email=address).first()
    return found


def report_received(report: mail.DeliveryReport) -> None:
    """A bounce or a complaint about a campaign's message (the mail app's delivery reports: read on
    the mailbox or told by an ESP's webhook): a complaint, or a permanent bounce, stops that
    recipient's sequence and puts the address on the suppression list with the campaign as its
    source; a transient bounce changes nothing (the next step tries again). A report about mail
    that is not a campaign's changes nothing; a second about the same message, nothing more."""
    for failure in report.failures:
        if not failure.permanent:
            continue
        recipient = _reported(report, failure.address)
        if recipient is None:
            continue
        complaint = report.kind == mail.COMPLAINT
        _stop(recipient, State.UNSUBSCRIBED if complaint else State.BOUNCED)
        mail.suppress(
            failure.address,
            reason="complained" if complaint else "bounced",
            source=f"deals.campaign:{recipient.campaign_id}",
        )


def check_answers(campaign: ReachoutCampaign) -> None:
    """Stops the sequences of the recipients who replied, bounced or are suppressed."""
    active = list(campaign.recipients.filter(state=State.ACTIVE))
    if not active:
        return
    suppressed = mail.suppressed_among([r.email for r in active])
    sent = CampaignMessage.objects.filter(recipient__in=active).values_list(
        "recipient_id", "message_id", "created_at"
    )
    by_message = {message_id: recipient_id for recipient_id, message_id, _at in sent}
    by_id = {r.pk: r for r in active}
    stopped: dict[int, str] = {}
    mailbox = campaign.mailbox
    if by_message and mailbox is not None:
        since = min(at for _r, _m, at in sent) - timedelta(minutes=5)
        incoming = mail.incoming(mailbox, since=since)
        for message in incoming.order_by("date", "id")[:2000]:
            refs = [message.in_reply_to, *mail.message_ids(message.references)]
            recipient_id = next((by_message[ref] for ref in refs if ref in by_message), None)
            notice = _failure_notice(message)
            if notice == "not_a_reply":
                continue
            if notice == "bounced":
                if recipient_id is None:
                    recipient_id = next((rid for mid, rid in by_message.items() if mid in message.text), None)
                if recipient_id is None:
                    recipient_id = next((r.pk for r in active if r.email in message.text.lower()), None)
                if recipient_id is not None:
                    stopped.setdefault(recipient_id, State.BOUNCED)
            elif recipient_id is not None:
                stopped.setdefault(recipient_id, State.REPLIED)
    for recipient in active:
        if recipient.pk in stopped:
            state = stopped[recipient.pk]
            _stop(recipient, state)
            if state == State.BOUNCED:
                mail.suppress(recipient.email, reason="bounced", source=f"deals.campaign:{campaign.pk}")
        elif recipient.email in suppressed:
            _stop(by_id[recipient.pk], State.UNSUBSCRIBED)


# --- sending -------------------------------------------------------------------------------------


def _render(text: str, recipient: CampaignRecipient) -> str:
    first = recipient.name.split()[0] if recipient.name.strip() else "there"
    company = recipient.contact.company if recipient.contact_id and recipient.contact else ""
    return (
        text.replace("{first_name}", first)
        .replace("{name}", recipient.name or recipient.email)
        .replace("{company}", company or "your company")
    )


def _footer(url: str) -> str:
    return f"\n\n--\nNot interested? Unsubscribe with one click: {url}"


def _advance(
    campaign: ReachoutCampaign, recipient: CampaignRecipient, sent_at: datetime, steps: list[CampaignStep]
) -> None:
    following = next((step for step in steps if step.position == recipient.next_step + 1), None)
    if following is None:
        CampaignRecipient.objects.filter(pk=recipient.pk).update(
            state=State.DONE, next_step=recipient.next_step + 1, next_due_at=None, stopped_at=sent_at
        )
        return
    due = in_window(campaign, recipient, sent_at + timedelta(days=following.delay_days))
    CampaignRecipient.objects.filter(pk=recipient.pk).update(next_step=following.position, next_due_at=due)


def send_step(
    campaign: ReachoutCampaign, recipient: CampaignRecipient, step: CampaignStep, steps: list[CampaignStep]
) -> bool:
    """Sends `step` to `recipient` once; True when it went."""
    mailbox = campaign.mailbox
    assert mailbox is not None  # campaign_tick stops a campaign whose mailbox is gone
    source = f"deals.campaign:{campaign.pk}"
    record = (
        CampaignMessage.objects.filter(recipient=recipient, position=step.position)
        .select_related("outgoing")
        .first()
    )
    try:
        if record is None:
            headers = mail.unsubscribe_headers(recipient.email, source=source)
            url = headers["List-Unsubscribe"].strip("<>")

            def keep(row: Outgoing) -> None:
                CampaignMessage.objects.create(
                    recipient=recipient,
                    position=step.position,
                    mailbox=mailbox,
                    outgoing=row,
                    message_id=row.message_id,
                )

            try:
                row = mail.letter_send(
                    mailbox=mailbox,
                    to=recipient.email,
                    subject=_render(step.subject, recipient),
                    text=_render(step.body, recipient) + _footer(url),
                    headers=headers,
                    on_queued=keep,
                )
            except IntegrityError:
                return False  # another process made this very message: it sends it
            record = CampaignMessage.objects.get(recipient=recipient, position=step.position)
        elif record.sent_at is None and record.outgoing is not None:
            # A try that failed goes again with the same Message-ID; one being sent, or interrupted
            # while sending, is never sent twice.
            if record.outgoing.status != Outgoing.Status.FAILED:
                if record.outgoing.status != Outgoing.Status.SENT:
                    return False
                row = record.outgoing
            else:
                row = mail.outbox_send(record.outgoing)
        else:
            return False
    except EmailNotSent:
        _stop(recipient, State.BOUNCED)
        mail.suppress(recipient.email, reason="bounced", source=source)
        return False
    if row.status != Outgoing.Status.SENT:
        return False
    CampaignMessage.objects.filter(pk=record.pk).update(sent_at=row.sent_at)
    _advance(campaign, recipient, row.sent_at or timezone.now(), steps)
    return True


def campaign_tick(campaign: ReachoutCampaign, *, now: datetime | None = None) -> int:
    """One run of a running campaign: answers first, then the due steps within the cap. Returns
    how many messages went. A mail server that is down ends the run (the next one tries again)."""
    if campaign.status != Status.RUNNING:
        return 0
    mailbox = campaign.mailbox
    if mailbox is None:
        # Its mailbox was removed: nothing can go, and nothing may go from another.
        campaign.status = Status.STOPPED
        campaign.save(update_fields=["status"])
        logger.info("campaign %s stopped: its mailbox is gone", campaign.pk)
        return 0
    now = now or timezone.now()
    try:
        mail.mailbox_sync(mailbox=mailbox)
    except AppError as error:
        logger.warning("campaign %s: mailbox not synchronised (%s)", campaign.pk, error.code)
    check_answers(campaign)
    steps = list(campaign.steps.order_by("position"))
    by_position = {step.position: step for step in steps}
    room = campaign.daily_cap - sent_today(mailbox.pk)
    sent = 0
    due = campaign.recipients.filter(state=State.ACTIVE, next_due_at__lte=now).select_related("contact")
    for recipient in due.order_by("next_due_at", "id")[: max(room, 0)]:
        step = by_position.get(recipient.next_step)
        if step is None:
            _advance(campaign, recipient, now, steps)
            continue
        local_due = in_window(campaign, recipient, now)
        if local_due > now:
            CampaignRecipient.objects.filter(pk=recipient.pk).update(next_due_at=local_due)
            continue
        if mail.suppressed(recipient.email):
            _stop(recipient, State.UNSUBSCRIBED)
            continue
        try:
            if send_step(campaign, recipient, step, steps):
                sent += 1
        except mail.SERVER_PROBLEMS as error:
            logger.warning(
                "campaign %s: mail server problem (%s); next run tries again", campaign.pk, error.code
            )
            break
        except AppError as error:
            logger.warning("campaign recipient %s not sent (%s)", recipient.pk, error.code)
            CampaignRecipient.objects.filter(pk=recipient.pk).update(state=State.FAILED, next_due_at=None)
    if not campaign.recipients.filter(state=State.ACTIVE).exists():
        ReachoutCampaign.objects.filter(pk=campaign.pk, status=Status.RUNNING).update(
            status=Status.FINISHED, finished_at=timezone.now()
        )
    return sent


def run_running() -> int:
    """Celery beat: a run of every running campaign of the workspace."""
    sent = 0
    for campaign in ReachoutCampaign.objects.filter(
        status=Status.RUNNING, deleted_at__isnull=True
    ).select_related("mailbox"):
        sent += campaign_tick(campaign)
    return sent


# --- reading -------------------------------------------------------------------------------------


def counts(campaign: ReachoutCampaign) -> dict[str, int]:
    rows = campaign.recipients.values("state").annotate(n=Count("id"))
    found = {state.value: 0 for state in State}
    found.update({row["state"]: row["n"] for row in rows})
    found["sent"] = CampaignMessage.objects.filter(
        recipient__campaign=campaign, sent_at__isnull=False
    ).count()
    return found


@dataclass
class Preview:
    recipient: CampaignRecipient
    sends: bool
    reason: str
    next_send_at: datetime | None
    time_zone: str


def preview(campaign: ReachoutCampaign, *, limit: int, offset: int) -> tuple[list[Preview], int]:
    """Who the campaign would write to next, when (in their window), and who it would skip and why."""
    rows = campaign.recipients.select_related("contact").order_by("id")
    total = rows.count()
    page = list(rows[offset : offset + limit])
    suppressed = mail.suppressed_among([r.email for r in page])
    steps = campaign.steps.count()
    now = timezone.now()
    found = []
    for recipient in page:
        zone = recipient.time_zone or campaign.time_zone
        reason, sends, when = "", False, None
        if recipient.state != State.ACTIVE:
            reason = f"sequence {recipient.state}"
        elif recipient.email in suppressed:
            reason = "on the suppression list"
        elif recipient.next_step > steps:
            reason = "every step sent"
        elif campaign.status in (Status.STOPPED, Status.FINISHED):
            reason = f"campaign {campaign.status}"
        else:
            sends = True
            when = in_window(campaign, recipient, max(now, recipient.next_due_at or now))
        found.append(Preview(recipient, sends, reason, when, zone))
    return found, total
