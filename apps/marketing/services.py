"""Writes about marketing. Each checks the actor's permission itself and logs ids only.

A campaign is written as a draft, launched (its segment's members snapshotted: apps.marketing.
sending), paused and launched again (resumed: nothing sent twice), and deleted to the trash. Its
autonomy says who may launch it: a person on the Settings page only (`manual`), an agent with the
person's confirmation (`approve`, the default), or an agent alone (`autonomous`)."""

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.contacts import api as contacts_api
from apps.core import clean, records
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.mail import api as mail
from apps.marketing import segments, sending
from apps.marketing.errors import (
    CampaignState,
    NoPostalAddress,
    NoRecipients,
    NoSegment,
    NoSenderMailbox,
    SegmentInUse,
)
from apps.marketing.models import Campaign, Consent, MarketingSettings, Segment
from apps.marketing.permissions import MarketingPerm

logger = logging.getLogger(__name__)
Status = Campaign.Status
SEGMENT_FIELDS = ("name", "description", "match", "rules")
CAMPAIGN_FIELDS = ("name", "subject", "body", "segment", "mailbox", "visibility")
# What a campaign may still change once launched.
ALWAYS = {"name", "visibility"}


# --- segments -----------------------------------------------------------------------------------


def _apply_segment(actor: Actor, segment: Segment, fields: dict[str, Any], creating: bool) -> None:
    if "name" in fields or creating:
        segment.name = records.unique_name(segment, fields.get("name"), what=_("a segment"), limit=120)
    if "description" in fields:
        segment.description = clean.text(fields["description"] or "", field="description", limit=500)
    if "match" in fields or creating:
        segment.match = fields.get("match") or Segment.Match.ALL
    if "rules" in fields or creating:
        segment.rules = segments.checked(fields.get("rules") or [])


def segment_create(*, actor: Actor, fields: dict[str, Any]) -> Segment:
    return records.create(
        Segment, actor=actor, permission=MarketingPerm.EDIT, fields=fields, apply=_apply_segment
    )


def segment_update(*, actor: Actor, segment: Segment, fields: dict[str, Any]) -> list[str]:
    return records.update(
        segment,
        actor=actor,
        permission=MarketingPerm.EDIT,
        fields=fields,
        apply=_apply_segment,
        names=SEGMENT_FIELDS,
    )


def segment_delete(*, actor: Actor, segment: Segment) -> None:
    require(actor, MarketingPerm.DELETE)
    user = (
        Campaign.objects.filter(segment=segment, deleted_at__isnull=True).exclude(status=Status.SENT).first()
    )
    if user is not None:
        raise SegmentInUse(id=segment.pk, campaign=user.pk, status=user.status)
    segment.trash(actor)
    logger.info("marketing segment %s deleted", segment.pk)


# --- campaigns ----------------------------------------------------------------------------------


def subject_line(value: Any) -> str:
    """A subject of one line: a line break would start a header of the sender's choosing."""
    raw = str(value or "")
    if any(char in raw for char in "\r\n\x00"):
        raise invalid("subject", _("must be one line: line breaks are refused (they would add mail headers)"))
    return clean.text(raw, field="subject", limit=200, required=True)


def _segment(actor: Actor, segment_id: Any) -> Segment | None:
    if segment_id is None:
        return None
    found: Segment = Segment.objects.fetch(actor, int(segment_id))
    return found


def sender_mailbox(actor: Actor, mailbox_id: Any) -> Any:
    """A mailbox the actor may send from (a campaign's, a sequence's), or the error naming mailboxId."""
    if mailbox_id is None:
        return None
    found = mail.mailboxes(actor, "change").filter(pk=int(mailbox_id), deleted_at__isnull=True).first()
    if found is None:
        raise invalid(
            "mailboxId", _("no mailbox {id} you may send from; find one with listInboxes"), id=mailbox_id
        )
    return found


def _apply_campaign(actor: Actor, campaign: Campaign, fields: dict[str, Any], creating: bool) -> None:
    later = set(fields) - ALWAYS
    if not creating and later and campaign.status != Status.DRAFT:
        raise CampaignState(
            id=campaign.pk,
            status=campaign.status,
            what=_("its content and audience change for"),
            allowed=_("a draft"),
        )
    if "name" in fields or creating:
        campaign.name = records.unique_name(campaign, fields.get("name"), what=_("a campaign"), limit=120)
    if "subject" in fields or creating:
        campaign.subject = subject_line(fields.get("subject"))
    if "body" in fields or creating:
        campaign.body = clean.long_text(fields.get("body"), field="body", limit=100_000, required=True)
    if "segment_id" in fields:
        campaign.segment = _segment(actor, fields["segment_id"])
    if "mailbox_id" in fields:
        campaign.mailbox = sender_mailbox(actor, fields["mailbox_id"])
    elif creating:
        campaign.mailbox = (
            mail.mailboxes(actor, "change").filter(owner=actor.pk, deleted_at__isnull=True).first()
        )
    if "visibility" in fields:
        campaign.visibility = fields["visibility"] or "workspace"


def campaign_create(*, actor: Actor, fields: dict[str, Any]) -> Campaign:
    return records.create(
        Campaign,
        actor=actor,
        permission=MarketingPerm.EDIT,
        fields=fields,
        apply=_apply_campaign,
        owner=actor,
    )


def campaign_update(*, actor: Actor, campaign: Campaign, fields: dict[str, Any]) -> list[str]:
    return records.update(
        campaign,
        actor=actor,
        permission=MarketingPerm.EDIT,
        fields=fields,
        apply=_apply_campaign,
        names=CAMPAIGN_FIELDS,
    )


def campaign_delete(*, actor: Actor, campaign: Campaign) -> None:
    """To the trash; a campaign sending stops (what went stays in its figures)."""
    require(actor, MarketingPerm.DELETE)
    with transaction.atomic():
        if campaign.status == Status.SENDING:
            Campaign.objects.filter(pk=campaign.pk).update(status=Status.PAUSED)
        campaign.trash(actor)
    logger.info("marketing campaign %s deleted", campaign.pk)


def launch_check(campaign: Campaign) -> None:
    """What a launch needs, checked before anyone is asked to confirm it."""
    if campaign.status not in (Status.DRAFT, Status.PAUSED):
        raise CampaignState(
            id=campaign.pk, status=campaign.status, what=_("launching is for"), allowed=_("a draft or paused")
        )
    if not MarketingSettings.current().postal_address.strip():
        raise NoPostalAddress()
    if campaign.mailbox is None:
        raise NoSenderMailbox(id=campaign.pk)
    if campaign.status == Status.DRAFT and campaign.segment is None:
        raise NoSegment(id=campaign.pk)


def skipped_words(found: sending.Audience) -> str:
    counted: dict[str, int] = {}
    for _member, reason in found.skipped:
        counted[reason] = counted.get(reason, 0) + 1
    return ", ".join(f"{n} {reason}" for reason, n in sorted(counted.items())) or _(
        "no contact with an address"
    )


def campaign_launch(*, actor: Actor, campaign: Campaign) -> Campaign:
    """Launches a draft (its audience snapshotted now) or resumes a paused campaign; the sending
    itself is a Celery run (apps.marketing.tasks) that starts once this commits."""
    require(actor, MarketingPerm.LAUNCH)
    with transaction.atomic():
        locked = (
            Campaign.objects.select_for_update(of=("self",))
            .select_related("segment", "mailbox")
            .get(pk=campaign.pk)
        )
        launch_check(locked)
        now = timezone.now()
        if locked.status == Status.DRAFT:
            assert locked.segment is not None
            found = sending.audience(actor, locked.segment, campaign=locked)
            if not found.reached:
                raise NoRecipients(id=locked.pk, members=found.members, skipped=skipped_words(found))
            sending.snapshot(locked, found, now)
            locked.launched_at, locked.launched_by = now, person(actor)
        locked.status = Status.SENDING
        locked.save(update_fields=["status", "launched_at", "launched_by", "updated_at"])
        sending.queue_run(locked.pk)
    logger.info("marketing campaign %s launched", locked.pk)
    return locked


def campaign_pause(*, actor: Actor, campaign: Campaign) -> str:
    require(actor, MarketingPerm.LAUNCH)
    updated = Campaign.objects.filter(pk=campaign.pk, status=Status.SENDING).update(status=Status.PAUSED)
    if not updated:
        campaign.refresh_from_db(fields=["status"])
        raise CampaignState(
            id=campaign.pk, status=campaign.status, what=_("pausing is for"), allowed=_("sending")
        )
    logger.info("marketing campaign %s paused", campaign.pk)
    return Status.SENDING


def campaign_autonomy(*, actor: Actor, campaign: Campaign, autonomy: str) -> str:
    """Sets who may launch the campaign; answers the level before."""
    require(actor, MarketingPerm.LAUNCH)
    before = campaign.autonomy
    campaign.autonomy = Campaign.Autonomy(autonomy)
    campaign.save(update_fields=["autonomy", "updated_at"])
    logger.info("marketing campaign %s autonomy %s", campaign.pk, autonomy)
    return before


# --- consent and the settings ---------------------------------------------------------------------


def consent_record(*, actor: Actor, contact_id: int, status: str, source: str = "") -> Consent:
    """Consent given (with double opt-in: pending until the contact confirms by the e-mailed link)
    or withdrawn, for a contact the actor may see."""
    require(actor, MarketingPerm.LAUNCH)
    contact = contacts_api.contact(actor=actor, contact_id=contact_id)
    if status not in (Consent.Status.GRANTED, Consent.Status.WITHDRAWN):
        raise invalid("status", _("must be granted or withdrawn"))
    settings = MarketingSettings.current()
    confirm = status == Consent.Status.GRANTED and settings.double_opt_in
    if confirm and not contact.email:
        raise invalid("contact", _("contact {id} has no e-mail address to confirm by"), id=contact.pk)
    with transaction.atomic():
        consent, _made = Consent.objects.update_or_create(
            contact=contact,
            defaults={
                "status": Consent.Status.PENDING if confirm else status,
                "source": clean.text(source, field="source", limit=100),
                "recorded_at": timezone.now(),
                "confirmed_at": None,
                "recorded_by": person(actor),
            },
        )
        if confirm:
            from apps.marketing import public

            transaction.on_commit(lambda: public.ask_to_confirm(consent.pk))
    logger.info("marketing consent %s: %s", consent.pk, consent.status)
    return consent


def consent_confirm(consent_id: int) -> Consent | None:
    """The contact's click on the double opt-in link: a pending consent granted."""
    Consent.objects.filter(pk=consent_id, status=Consent.Status.PENDING).update(
        status=Consent.Status.GRANTED, confirmed_at=timezone.now()
    )
    return Consent.objects.filter(pk=consent_id).first()


def settings_update(*, actor: Actor, fields: dict[str, Any]) -> MarketingSettings:
    require(actor, MarketingPerm.ADMIN)
    settings = MarketingSettings.current()
    settings.postal_address = clean.long_text(fields.get("postal_address"), field="postal_address", limit=500)
    settings.double_opt_in = bool(fields.get("double_opt_in"))
    settings.frequency_cap = int(fields["frequency_cap"])
    settings.frequency_days = int(fields["frequency_days"])
    settings.quiet_start = int(fields["quiet_start"])
    settings.quiet_end = int(fields["quiet_end"])
    settings.time_zone = clean.zone(fields.get("time_zone") or "UTC", field="time_zone")
    settings.save()
    logger.info("marketing settings changed")
    return settings
