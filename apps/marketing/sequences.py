"""E-mail sequences: writes, enrolment and the engine that sends their steps.

A sequence is a list of steps (subject, text, a delay in hours after the step before, or after the
enrolment for the first, and an optional condition on the message before: opened, clicked, or
not). Contacts are enrolled one by one or a segment at a time (each an `Enrollment`, checked like a
campaign's recipient: on the suppression list or without consent, they are not enrolled).

`tick(sequence)` (Celery beat, every minute, for each active sequence) first lets contacts leave:
who replied (a message to the sequence's mailbox in the thread of one we sent them, or from their
address since they were enrolled), who is on the suppression list (unsubscribed through the
one-click link, bounced, complained), who reached the goal (their contact's lifecycle stage), and
who withdrew consent. Then it sends each due step through the campaigns' sending path
(apps.marketing.sending: quiet hours in the recipient's zone, the frequency cap counted with
campaigns', RFC 8058 headers, the postal address in the footer, tracked links). A step is sent
once: its `StepSend` row is made with its outbox row in one transaction before anything goes, and
is unique per enrolment, round and step; a worker that dies after sending and before moving the
contact on finds the row next time and moves on without sending again. Enrolling a contact who
left again is explicit (`again`), and starts a new round."""

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.contacts import api as contacts_api
from apps.core import clean, records
from apps.core.actors import Actor, require
from apps.core.errors import AppError, EmailNotSent, invalid
from apps.mail import api as mail
from apps.mail.api import Outgoing
from apps.marketing import sending, services, tracking
from apps.marketing.errors import NobodyToEnroll, NoPostalAddress, SequenceNotReady, SequenceState
from apps.marketing.models import (
    Consent,
    EmailSequence,
    Enrollment,
    MarketingSettings,
    Segment,
    StepSend,
)
from apps.marketing.permissions import MarketingPerm

logger = logging.getLogger(__name__)
Status = EmailSequence.Status
State = Enrollment.State
CONDITIONS = ("", "opened", "clicked", "not_opened", "not_clicked")
MAX_STEPS = 20
MAX_DELAY_HOURS = 24 * 365
MAX_ENROLL = 5000
BATCH = 500
SEQUENCE_FIELDS = ("name", "steps", "goal_stage", "mailbox", "visibility")
STAGES = ("lead", "prospect", "customer", "partner", "supplier", "former")


def source_of(sequence_id: int) -> str:
    """What the suppression list says an unsubscribe came from."""
    return f"marketing.sequence:{sequence_id}"


# --- the steps ----------------------------------------------------------------------------------


def checked_steps(raw: Any) -> list[dict[str, Any]]:
    """The steps, each checked (naming the one at fault): subject one line, text, delay, condition."""
    if not isinstance(raw, list):
        raise invalid("steps", _("must be a list of steps"))
    if len(raw) > MAX_STEPS:
        raise invalid("steps", _("at most {n} steps"), n=MAX_STEPS)
    steps = []
    for index, step in enumerate(raw):
        where = f"steps[{index}]"
        if not isinstance(step, dict):
            raise invalid(where, _("must be an object with subject, body and delayHours"))
        subject = str(step.get("subject") or "")
        if any(char in subject for char in "\r\n\x00"):
            raise invalid(f"{where}.subject", _("must be one line: line breaks would add mail headers"))
        delay = step.get("delayHours", 0)
        if not isinstance(delay, int) or isinstance(delay, bool) or not 0 <= delay <= MAX_DELAY_HOURS:
            raise invalid(f"{where}.delayHours", _("must be whole hours from 0 to {n}"), n=MAX_DELAY_HOURS)
        condition = step.get("condition") or ""
        if condition not in CONDITIONS:
            raise invalid(
                f"{where}.condition", _("must be one of opened, clicked, not_opened, not_clicked, or none")
            )
        if condition and index == 0:
            raise invalid(f"{where}.condition", _("the first step has no message before it to look at"))
        steps.append(
            {
                "subject": clean.text(subject, field=f"{where}.subject", limit=200, required=True),
                "body": clean.long_text(step.get("body"), field=f"{where}.body", limit=20_000, required=True),
                "delayHours": delay,
                "condition": condition,
                "aiGenerated": bool(step.get("aiGenerated")),
            }
        )
    return steps


# --- writes -------------------------------------------------------------------------------------


def _apply(actor: Actor, sequence: EmailSequence, fields: dict[str, Any], creating: bool) -> None:
    if "steps" in fields and not creating and sequence.status == Status.ACTIVE:
        raise SequenceState(
            id=sequence.pk,
            status=sequence.status,
            what=_("its steps change for"),
            allowed=_("a draft or paused"),
        )
    if "name" in fields or creating:
        sequence.name = records.unique_name(sequence, fields.get("name"), what=_("a sequence"), limit=120)
    if "steps" in fields or creating:
        steps = checked_steps(fields.get("steps") or [])
        if not creating:
            _keeps_passed(sequence, steps)
        sequence.steps = steps
    if "goal_stage" in fields:
        stage = fields["goal_stage"] or ""
        if stage and stage not in STAGES:
            raise invalid("goalStage", _("must be a lifecycle stage: {stages}"), stages=", ".join(STAGES))
        sequence.goal_stage = stage
    if "mailbox_id" in fields:
        sequence.mailbox = services.sender_mailbox(actor, fields["mailbox_id"])
    elif creating:
        sequence.mailbox = (
            mail.mailboxes(actor, "change").filter(owner=actor.pk, deleted_at__isnull=True).first()
        )
    if "visibility" in fields:
        sequence.visibility = fields["visibility"] or "workspace"


def _keeps_passed(sequence: EmailSequence, steps: list[dict[str, Any]]) -> None:
    """The steps a contact still enrolled has passed stay where they are, as they are: a contact's
    place is a step's index, so a step put before it, or one taken out, would send them a step
    again (or skip one). The steps after change freely."""
    passed = sequence.enrollments.filter(state=State.ACTIVE).aggregate(n=Max("next_step"))["n"] or 0
    for index, step in enumerate(sequence.steps[:passed]):
        given = steps[index] if index < len(steps) else None
        if given is None or (given["subject"], given["body"]) != (step["subject"], step["body"]):
            raise invalid(
                f"steps[{index}]",
                _("contacts still enrolled have passed this step: the first {n} steps stay as they are"),
                n=passed,
            )


def sequence_create(*, actor: Actor, fields: dict[str, Any]) -> EmailSequence:
    return records.create(
        EmailSequence, actor=actor, permission=MarketingPerm.EDIT, fields=fields, apply=_apply, owner=actor
    )


def sequence_update(*, actor: Actor, sequence: EmailSequence, fields: dict[str, Any]) -> list[str]:
    return records.update(
        sequence,
        actor=actor,
        permission=MarketingPerm.EDIT,
        fields=fields,
        apply=_apply,
        names=SEQUENCE_FIELDS,
    )


def steps_add(*, actor: Actor, sequence: EmailSequence, step: dict[str, Any], position: int | None) -> int:
    """A step put in at `position` (default: last); its index."""
    require(actor, MarketingPerm.EDIT)
    steps = list(sequence.steps)
    at = len(steps) if position is None else min(position, len(steps))
    steps.insert(at, step)
    sequence_update(actor=actor, sequence=sequence, fields={"steps": steps})
    return at


def sequence_delete(*, actor: Actor, sequence: EmailSequence) -> None:
    """To the trash; an active sequence stops (its enrolments send nothing more)."""
    require(actor, MarketingPerm.DELETE)
    with transaction.atomic():
        if sequence.status == Status.ACTIVE:
            EmailSequence.objects.filter(pk=sequence.pk).update(status=Status.PAUSED)
        sequence.trash(actor)
    logger.info("marketing sequence %s deleted", sequence.pk)


def activate_check(sequence: EmailSequence) -> None:
    """What activating needs, checked before anyone is asked to confirm it."""
    if sequence.status == Status.ACTIVE:
        raise SequenceState(
            id=sequence.pk,
            status=sequence.status,
            what=_("activating is for"),
            allowed=_("a draft or paused"),
        )
    if not MarketingSettings.current().postal_address.strip():
        raise NoPostalAddress()
    if not sequence.steps:
        raise SequenceNotReady(
            id=sequence.pk, problem=_("it has no steps (add them with updateEmailSequence)")
        )
    if sequence.mailbox_id is None:
        raise SequenceNotReady(
            id=sequence.pk, problem=_("it has no mailbox to send from (mailboxId, with updateEmailSequence)")
        )


def sequence_activate(*, actor: Actor, sequence: EmailSequence, active: bool) -> str:
    """Activates (or, `active` false, pauses) a sequence; answers the status before."""
    require(actor, MarketingPerm.LAUNCH)
    before = sequence.status
    if active:
        activate_check(sequence)
        EmailSequence.objects.filter(pk=sequence.pk).update(status=Status.ACTIVE, activated_at=timezone.now())
    elif not EmailSequence.objects.filter(pk=sequence.pk, status=Status.ACTIVE).update(status=Status.PAUSED):
        raise SequenceState(
            id=sequence.pk, status=sequence.status, what=_("pausing is for"), allowed=_("active")
        )
    logger.info("marketing sequence %s: %s", sequence.pk, "active" if active else "paused")
    return before


# --- enrolment ----------------------------------------------------------------------------------


@dataclass
class Enrolled:
    members: int = 0
    enrolled: list[Enrollment] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (address, reason)

    def by_reason(self) -> dict[str, int]:
        counted: dict[str, int] = {}
        for _email, reason in self.skipped:
            counted[reason] = counted.get(reason, 0) + 1
        return counted


def candidates(actor: Actor, *, contact_ids: list[int], segment: Segment | None) -> list[sending.Member]:
    """The contacts asked for that the actor may see, with an address, one per address. An id the
    actor may not see is refused as not found (the same answer as one that does not exist)."""
    settings = MarketingSettings.current()
    if segment is not None:
        return sending.members(actor, segment, settings)
    rows = {
        pk: (email, first, last, organisation, data)
        for pk, email, first, last, organisation, data in contacts_api.contacts(actor)
        .filter(pk__in=contact_ids)
        .values_list("id", "email", "first_name", "last_name", "organisation_name", "data")
    }
    found: dict[str, sending.Member] = {}
    for pk in contact_ids:
        if pk not in rows:
            raise contacts_api.not_found(pk)
        email, first, last, organisation, data = rows[pk]
        address = (email or "").strip().lower()
        if not address:
            raise invalid("contactIds", _("contact {id} has no e-mail address"), id=pk)
        name = " ".join(part for part in (first, last) if part) or organisation
        found.setdefault(
            address, sending.Member(pk, address, name, first, sending.zone_of(data, settings.time_zone))
        )
    return list(found.values())


def enroll(
    *,
    actor: Actor,
    sequence: EmailSequence,
    contact_ids: list[int],
    segment: Segment | None,
    again: bool = False,
    dry_run: bool = False,
) -> Enrolled:
    """Enrols the contacts (or the segment's members) who may get marketing e-mail; the others are
    skipped with their reason. `dry_run`: who would be, writing nothing."""
    require(actor, MarketingPerm.LAUNCH)
    found = candidates(actor, contact_ids=contact_ids, segment=segment)
    if len(found) > MAX_ENROLL:
        raise invalid("segmentId", _("at most {n} contacts are enrolled at once"), n=MAX_ENROLL)
    emails = [member.email for member in found]
    suppressed = mail.suppression_reasons(emails)
    consenting = set(
        Consent.objects.filter(
            contact_id__in=[member.contact_id for member in found], status=Consent.Status.GRANTED
        ).values_list("contact_id", flat=True)
    )
    existing = {row.email: row for row in Enrollment.objects.filter(sequence=sequence, email__in=emails)}
    result = Enrolled(members=len(found))
    now = timezone.now()
    first_delay = timedelta(hours=sequence.steps[0]["delayHours"]) if sequence.steps else timedelta(0)
    with transaction.atomic():
        for member in found:
            before = existing.get(member.email)
            if member.email in suppressed:
                result.skipped.append(
                    (member.email, sending.SUPPRESSION_REASONS.get(suppressed[member.email], "suppressed"))
                )
            elif member.contact_id not in consenting:
                result.skipped.append((member.email, "no_consent"))
            elif before is not None and before.state == State.ACTIVE:
                result.skipped.append((member.email, "already_enrolled"))
            elif before is not None and not again:
                result.skipped.append((member.email, f"left_{before.state}"))
            elif dry_run:
                result.enrolled.append(
                    Enrollment(sequence=sequence, email=member.email, name=member.name[:200])
                )
            elif before is not None:
                Enrollment.objects.filter(pk=before.pk).update(
                    state=State.ACTIVE, round=before.round + 1, next_step=0, next_due_at=now + first_delay,
                    enrolled_at=now, exited_at=None, contact_id=member.contact_id,
                )  # fmt: skip
                before.refresh_from_db()
                result.enrolled.append(before)
            else:
                result.enrolled.append(
                    Enrollment.objects.create(
                        sequence=sequence,
                        contact_id=member.contact_id,
                        email=member.email,
                        name=member.name[:200],
                        time_zone=member.time_zone,
                        next_due_at=now + first_delay,
                        enrolled_at=now,
                    )
                )
        if not result.enrolled:
            raise NobodyToEnroll(
                id=sequence.pk,
                members=result.members,
                skipped=", ".join(f"{n} {reason}" for reason, n in sorted(result.by_reason().items()))
                or _("no contact with an address"),
            )
    logger.info("marketing sequence %s: %s enrolled", sequence.pk, len(result.enrolled))
    return result


# --- the engine ---------------------------------------------------------------------------------


def _leave(enrollment_ids: list[int], state: str) -> int:
    if not enrollment_ids:
        return 0
    left = Enrollment.objects.filter(pk__in=enrollment_ids, state=State.ACTIVE).update(
        state=state, next_due_at=None, exited_at=timezone.now()
    )
    logger.info("marketing sequence: %s enrolments left (%s)", left, state)
    return left


def _replied(sequence: EmailSequence, active: list[Enrollment]) -> set[int]:
    """The enrolments whose contact wrote back: a message in the thread of one we sent them, or from
    their address, since they were enrolled."""
    mailbox = sequence.mailbox
    if mailbox is None or not active:
        return set()
    try:
        mail.mailbox_sync(mailbox=mailbox)
    except mail.SERVER_PROBLEMS as error:
        logger.warning("marketing sequence %s: mailbox not read (%s)", sequence.pk, error.code)
    by_message = dict(
        StepSend.objects.filter(enrollment__in=active)
        .exclude(message_id="")
        .values_list("message_id", "enrollment_id")
    )
    by_address = {row.email: row for row in active}
    since = min(row.enrolled_at for row in active) - timedelta(minutes=5)
    found: set[int] = set()
    for message in mail.incoming(mailbox, since=since).order_by("date", "id")[:5000]:
        refs = [message.in_reply_to, *mail.message_ids(message.references)]
        enrollment_id = next((by_message[ref] for ref in refs if ref in by_message), None)
        if enrollment_id is None:
            row = by_address.get((message.from_address or "").strip().lower())
            if row is not None and message.date and message.date >= row.enrolled_at:
                enrollment_id = row.pk
        if enrollment_id is not None:
            found.add(enrollment_id)
    return found


def check_exits(sequence: EmailSequence) -> dict[str, int]:
    """Who leaves now, by reason: replied, unsubscribed (the suppression list), goal, no consent."""
    active = list(sequence.enrollments.filter(state=State.ACTIVE))
    if not active:
        return {}
    left: dict[str, int] = {}
    replied = _replied(sequence, active)
    left[State.REPLIED] = _leave(sorted(replied), State.REPLIED)
    rest = [row for row in active if row.pk not in replied]
    suppressed = mail.suppressed_among([row.email for row in rest])
    left[State.UNSUBSCRIBED] = _leave([row.pk for row in rest if row.email in suppressed], State.UNSUBSCRIBED)
    rest = [row for row in rest if row.email not in suppressed]
    contact_ids = [row.contact_id for row in rest if row.contact_id]
    if sequence.goal_stage and contact_ids:
        reached = set(
            contacts_api.Contact.objects.filter(
                pk__in=contact_ids, lifecycle_stage=sequence.goal_stage
            ).values_list("id", flat=True)
        )
        left[State.GOAL] = _leave([row.pk for row in rest if row.contact_id in reached], State.GOAL)
        rest = [row for row in rest if row.contact_id not in reached]
    consenting = set(
        Consent.objects.filter(  # an archived contact's stands no more
            contact_id__in=contact_ids, status=Consent.Status.GRANTED, contact__deleted_at__isnull=True
        ).values_list("contact_id", flat=True)
    )
    left[State.NO_CONSENT] = _leave(
        [row.pk for row in rest if row.contact_id not in consenting], State.NO_CONSENT
    )
    return {reason: n for reason, n in left.items() if n}


def _advance(enrollment: Enrollment, steps: list[dict[str, Any]], at: datetime) -> None:
    following = enrollment.next_step + 1
    if following >= len(steps):
        Enrollment.objects.filter(pk=enrollment.pk, state=State.ACTIVE).update(
            state=State.COMPLETED, next_step=following, next_due_at=None, exited_at=at
        )
    else:
        Enrollment.objects.filter(pk=enrollment.pk, state=State.ACTIVE).update(
            next_step=following, next_due_at=at + timedelta(hours=steps[following]["delayHours"])
        )


def _condition_met(enrollment: Enrollment, condition: str) -> bool:
    if not condition:
        return True
    before = StepSend.objects.filter(
        enrollment=enrollment, round=enrollment.round, step=enrollment.next_step - 1
    ).first()
    opened = bool(before and (before.opened_at or before.clicked_at))
    clicked = bool(before and before.clicked_at)
    return {"opened": opened, "clicked": clicked, "not_opened": not opened, "not_clicked": not clicked}[
        condition
    ]


def _row(enrollment: Enrollment) -> StepSend:
    """The step's row for this round, made once (a second process finds the first one's)."""
    try:
        with transaction.atomic():
            row, _made = StepSend.objects.get_or_create(
                enrollment=enrollment,
                round=enrollment.round,
                step=enrollment.next_step,
                defaults={"email": enrollment.email},
            )
    except IntegrityError:
        row = StepSend.objects.get(enrollment=enrollment, round=enrollment.round, step=enrollment.next_step)
    return row


def _deliver(
    sequence: EmailSequence, enrollment: Enrollment, row: StepSend, step: dict[str, Any]
) -> Outgoing | None:
    """The step's message sent once; its outbox row, or None when another process has it."""
    mailbox = sequence.mailbox
    assert mailbox is not None
    if row.outgoing_id is not None:
        queued = Outgoing.objects.get(pk=row.outgoing_id)
        if queued.status in (Outgoing.Status.QUEUED, Outgoing.Status.FAILED):
            return mail.outbox_send(queued)  # the same Message-ID
        return queued if queued.status == Outgoing.Status.SENT else None
    settings = MarketingSettings.current()
    headers = mail.unsubscribe_headers(enrollment.email, source=source_of(sequence.pk))
    unsubscribe = headers["List-Unsubscribe"].strip("<>")
    text = tracking.tracked(sending.personal(step["body"], enrollment), row.pk, step=True)
    text += sending.footer(settings, unsubscribe)

    def keep(queued: Outgoing) -> None:
        claimed = StepSend.objects.filter(pk=row.pk, outgoing__isnull=True).update(
            outgoing=queued, message_id=queued.message_id
        )
        if not claimed:
            raise IntegrityError("another run queued this step")

    try:
        return mail.letter_send(
            mailbox=mailbox,
            to=enrollment.email,
            subject=sending.personal(step["subject"], enrollment),
            text=text,
            html=sending.html_of(text, row.pk, step=True),
            headers=headers,
            on_queued=keep,
        )
    except IntegrityError:
        return None


def tick(sequence: EmailSequence, *, now: datetime | None = None, batch: int = BATCH) -> int:
    """One run of an active sequence: who leaves, then the due steps; how many messages went."""
    if sequence.status != Status.ACTIVE or sequence.deleted_at is not None:
        return 0
    if sequence.mailbox is None:
        EmailSequence.objects.filter(pk=sequence.pk).update(status=Status.PAUSED)
        logger.info("marketing sequence %s paused: its mailbox is gone", sequence.pk)
        return 0
    check_exits(sequence)
    now = now or timezone.now()
    settings = MarketingSettings.current()
    steps = sequence.steps
    sent = 0
    due = sequence.enrollments.filter(state=State.ACTIVE, next_due_at__lte=now).order_by("next_due_at", "id")
    for enrollment in due[:batch]:
        if not EmailSequence.objects.filter(
            pk=sequence.pk, status=Status.ACTIVE, deleted_at__isnull=True
        ).exists():
            break  # paused or deleted while this run was on its way
        if enrollment.next_step >= len(steps):
            _advance(enrollment, steps, now)
            continue
        step = steps[enrollment.next_step]
        row = StepSend.objects.filter(
            enrollment=enrollment, round=enrollment.round, step=enrollment.next_step
        ).first()
        if row is not None and row.state in (StepSend.State.SENT, StepSend.State.SKIPPED):
            _advance(enrollment, steps, row.sent_at or now)  # a run cut short after sending: moved on
            continue
        if row is None or row.outgoing_id is None:
            later = sending.out_of_quiet(now, enrollment.time_zone, settings)
            if later > now:
                Enrollment.objects.filter(pk=enrollment.pk).update(next_due_at=later)
                continue
            if enrollment.email in sending.capped([enrollment.email], settings):
                Enrollment.objects.filter(pk=enrollment.pk).update(next_due_at=now + timedelta(hours=24))
                continue
            if not _condition_met(enrollment, step.get("condition", "")):
                skipped = row or _row(enrollment)
                StepSend.objects.filter(pk=skipped.pk, outgoing__isnull=True).update(
                    state=StepSend.State.SKIPPED
                )
                _advance(enrollment, steps, now)
                continue
        row = row or _row(enrollment)
        try:
            queued = _deliver(sequence, enrollment, row, step)
        except EmailNotSent:
            StepSend.objects.filter(pk=row.pk).update(state=StepSend.State.FAILED)
            mail.suppress(enrollment.email, reason="bounced", source=source_of(sequence.pk))
            _leave([enrollment.pk], State.UNSUBSCRIBED)
            continue
        except mail.SERVER_PROBLEMS as error:
            logger.warning(
                "marketing sequence %s: mail server problem (%s); resumed next run", sequence.pk, error.code
            )
            break
        except AppError as error:
            logger.warning("marketing step send %s not sent (%s)", row.pk, error.code)
            StepSend.objects.filter(pk=row.pk).update(state=StepSend.State.FAILED)
            _leave([enrollment.pk], State.REMOVED)
            continue
        if queued is not None and queued.status == Outgoing.Status.SENT:
            at = queued.sent_at or now
            StepSend.objects.filter(pk=row.pk).update(state=StepSend.State.SENT, sent_at=at)
            _advance(enrollment, steps, at)
            sent += 1
    return sent


def run_sequences() -> int:
    """Celery beat: a run of every active sequence of the workspace."""
    sent = 0
    for sequence in EmailSequence.objects.filter(
        status=Status.ACTIVE, deleted_at__isnull=True
    ).select_related("mailbox"):
        sent += tick(sequence)
    return sent


# --- reads --------------------------------------------------------------------------------------


def sequences(actor: Actor) -> Any:
    return EmailSequence.objects.restrict(actor).select_related("owner", "mailbox").order_by("name", "id")


def figures(
    sequence: EmailSequence, *, since: datetime | None = None, until: datetime | None = None
) -> dict[str, Any]:
    """Enrolments by state, and the messages' figures (clicks first; opens unreliable)."""
    enrollments = Enrollment.objects.filter(sequence=sequence)
    by_state = {state.value: 0 for state in State}
    for state, n in enrollments.values_list("state").annotate(n=Count("id")).values_list("state", "n"):
        by_state[state] = n
    rows = StepSend.objects.filter(enrollment__sequence=sequence)
    if since is not None:
        rows = rows.filter(created_at__gte=since)
    if until is not None:
        rows = rows.filter(created_at__lt=until)
    counted = rows.aggregate(
        sent=Count("id", filter=Q(state=StepSend.State.SENT)),
        failed=Count("id", filter=Q(state=StepSend.State.FAILED)),
        skipped=Count("id", filter=Q(state=StepSend.State.SKIPPED)),
        clickers=Count("id", filter=Q(clicked_at__isnull=False)),
        opens=Count("id", filter=Q(opened_at__isnull=False)),
    )
    gone = mail.suppression_counts(source=source_of(sequence.pk))
    sent_to = list(rows.filter(state=StepSend.State.SENT).values_list("email", flat=True).distinct())
    returned = mail.suppression_counts(source=source_of(sequence.pk), among=sent_to) if sent_to else {}
    per_step = dict(
        rows.filter(state=StepSend.State.SENT)
        .values_list("step")
        .annotate(n=Count("id"))
        .values_list("step", "n")
    )
    return {
        "enrollments": by_state,
        "sent_by_step": [per_step.get(index, 0) for index in range(len(sequence.steps))],
        **counted,
        "unsubscribes": gone.get("unsubscribed", 0),
        "complaints": gone.get("complained", 0),
        "bounced": gone.get("bounced", 0),
        # Of those, the ones that bounced after they were sent (the others were refused at sending).
        "returned": returned.get("bounced", 0),
        "conversions": by_state.get(State.GOAL, 0),
    }
