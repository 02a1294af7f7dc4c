"""The Agent Dialer's writes: calls and text messages placed through the configured provider once
every rule holds (apps.dialer.rules: E.164, emergency and premium numbers, calling hours; here:
the do-not-call list, verified caller ids, consent for the artificial voice), the do-not-call list
and pronunciations, and the provider's signed callbacks (status, answering-machine detection,
inbound text messages with their STOP words). Nothing is charged for a call refused here: it never
reaches the provider."""

import hashlib
import hmac
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core import clean, recurrence
from apps.core.actors import require
from apps.core.errors import AppError, invalid
from apps.dialer import errors, providers, rules
from apps.dialer.models import Call, Callback, DoNotCall, Message, Pronunciation
from apps.dialer.permissions import DialerPerm
from apps.integrations.api import setting
from apps.tenancy import links

logger = logging.getLogger(__name__)

TERMINAL_CALL = {"completed", "busy", "failed", "no-answer", "canceled"}
CALL_STATUSES = {choice.value for choice in Call.Status}
MESSAGE_STATUSES = {
    "queued",
    "accepted",
    "sending",
    "sent",
    "delivered",
    "undelivered",
    "failed",
    "received",
    "read",
}
MIN_CONSENT = 10


def blocked(number: str) -> DoNotCall | None:
    """The number's live entry on the do-not-call list (not removed, not expired)."""
    return (
        DoNotCall.objects.filter(number=number, deleted_at__isnull=True)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .first()
    )


@dataclass(frozen=True)
class Checked:
    """A number and caller id that passed every rule, and what is said."""

    provider: providers.Provider
    to: str
    caller_id: str
    zone: str


def check(
    *, tool: str, to: str, caller_id: str = "", callee_time_zone: str = "", now: datetime | None = None
) -> Checked:
    """Every rule a call or a text message passes before the provider is asked (and before the
    user is asked to confirm): configured, E.164, not emergency or premium, not on the do-not-call
    list, within the calling hours at the callee's location, from a verified caller id."""
    provider = providers.provider(tool)
    number = rules.e164(to, field="to")
    entry = blocked(number)
    if entry is not None:
        raise errors.NumberOnDoNotCall(number=number, reason=entry.reason or entry.get_source_display())
    zones = rules.zones_of(number, callee_time_zone)
    rules.check_hours(number, zones, now or timezone.now())
    verified = provider.caller_ids()
    if caller_id:
        chosen = rules.e164(caller_id, field="callerId")
        if chosen not in verified:
            raise errors.CallerIdNotVerified(number=chosen, known=", ".join(verified) or _("none"))
    elif verified:
        chosen = verified[0]
    else:
        raise errors.CallerIdNotVerified(number=_("(none given)"), known=_("none"))
    return Checked(provider=provider, to=number, caller_id=chosen, zone=zones[0] if len(zones) == 1 else "")


@dataclass(frozen=True)
class CallAsked:
    script: str
    voicemail: str
    consent: str
    contact_name: str


def call_asked(*, script: str, voicemail: str = "", consent: str = "", contact_name: str = "") -> CallAsked:
    asked = CallAsked(
        script=clean.long_text(script, field="script", limit=4000, required=True),
        voicemail=clean.long_text(voicemail, field="voicemail", limit=2000),
        consent=clean.text(consent, field="consent", limit=300),
        contact_name=clean.text(contact_name, field="contactName", limit=200),
    )
    # Every call here speaks with a generated voice: an "artificial voice" (FCC, February 2024).
    if len(asked.consent) < MIN_CONSENT:
        raise errors.ConsentMissing()
    return asked


def call_check(
    actor: Any, *, to: str, caller_id: str = "", callee_time_zone: str = "", **asked: Any
) -> Checked:
    require(actor, DialerPerm.CALL)
    checked = check(tool="makeCall", to=to, caller_id=caller_id, callee_time_zone=callee_time_zone)
    call_asked(**asked)
    return checked


def call_place(
    actor: Any,
    *,
    to: str,
    script: str,
    consent: str,
    voicemail: str = "",
    caller_id: str = "",
    contact_name: str = "",
    callee_time_zone: str = "",
) -> Call:
    """A call placed: the provider rings `to` and asks the workspace's host what to say (the
    script, or the voicemail once an answering machine's greeting ended)."""
    require(actor, DialerPerm.CALL)
    checked = check(tool="makeCall", to=to, caller_id=caller_id, callee_time_zone=callee_time_zone)
    asked = call_asked(script=script, voicemail=voicemail, consent=consent, contact_name=contact_name)
    placed = checked.provider.place_call(
        to=checked.to,
        caller_id=checked.caller_id,
        twiml_url=links.page("dialer:voice"),
        status_url=links.page("dialer:status"),
    )
    call = Call.objects.create(
        sid=placed.sid,
        to_number=checked.to,
        from_number=checked.caller_id,
        contact_name=asked.contact_name,
        status=placed.status if placed.status in CALL_STATUSES else Call.Status.QUEUED,
        script=asked.script,
        voicemail=asked.voicemail,
        consent=asked.consent,
        callee_zone=checked.zone or _("every zone of the country"),
        created_by=actor,
    )
    logger.info("call %s placed", call.pk)
    return call


def call_end(actor: Any, call: Call) -> Call:
    if not call.active:
        raise errors.CallNotActive(id=call.pk, status=call.status, what=_("endCall ends it"))
    ending = "completed" if call.status == Call.Status.IN_PROGRESS else "canceled"
    placed = providers.provider("endCall").update_call(call.sid, Status=ending)
    call.status = placed.status if placed.status in CALL_STATUSES else ending
    call.ended_at = timezone.now()
    call.save(update_fields=["status", "ended_at", "updated_at"])
    return call


def voicemail_check(actor: Any, call: Call, message: str) -> str:
    providers.provider("leaveVoicemail")
    text = clean.long_text(message, field="message", limit=2000, required=True)
    if not call.active:
        raise errors.CallNotActive(id=call.pk, status=call.status, what=_("leaveVoicemail leaves one"))
    if call.status == Call.Status.IN_PROGRESS and call.answered_by and not call.machine:
        raise invalid(
            "callId", _("the call was answered by a person: a voicemail is left only with a machine")
        )
    return text


def voicemail_leave(actor: Any, call: Call, message: str) -> bool:
    """Said now when a machine answered the call in progress (the call is redirected to it); kept
    for when a machine answers otherwise. True when it was left."""
    text = voicemail_check(actor, call, message)
    call.voicemail = text
    fields = ["voicemail", "updated_at"]
    if call.status == Call.Status.IN_PROGRESS and call.machine:
        providers.provider("leaveVoicemail").update_call(
            call.sid, Twiml=providers.say(spoken(text), voice=_voice())
        )
        call.voicemail_left_at = timezone.now()
        fields.append("voicemail_left_at")
    call.save(update_fields=fields)
    return call.voicemail_left_at is not None


def sms_check(
    actor: Any, *, to: str, body: str, caller_id: str = "", callee_time_zone: str = ""
) -> tuple[Checked, str]:
    require(actor, DialerPerm.CALL)
    checked = check(tool="sendSms", to=to, caller_id=caller_id, callee_time_zone=callee_time_zone)
    return checked, clean.long_text(body, field="body", limit=1600, required=True)


def sms_send(actor: Any, *, to: str, body: str, caller_id: str = "", callee_time_zone: str = "") -> Message:
    checked, text = sms_check(actor, to=to, body=body, caller_id=caller_id, callee_time_zone=callee_time_zone)
    placed = checked.provider.send_message(
        to=checked.to, caller_id=checked.caller_id, body=text, status_url=links.page("dialer:status")
    )
    return Message.objects.create(
        sid=placed.sid,
        direction=Message.Direction.OUTBOUND,
        to_number=checked.to,
        from_number=checked.caller_id,
        body=text,
        status=placed.status[:12],
        segments=rules.segments(text),
        created_by=actor,
    )


def aware(actor: Any, value: datetime | None) -> datetime | None:
    """`value` as given, or, without an offset, a wall-clock time in the person's zone (their own,
    else the workspace's)."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=recurrence.zone_named(getattr(actor, "time_zone", "") or None))


# --- the do-not-call list and pronunciations ---------------------------------------------------------


def dnc_add(
    actor: Any,
    *,
    number: str,
    reason: str = "",
    expires_at: datetime | None = None,
    source: str = DoNotCall.Source.MANUAL,
) -> DoNotCall:
    if actor is not None:
        require(actor, DialerPerm.MANAGE)
    normalised = rules.e164(number, field="number")
    reason = clean.text(reason, field="reason", limit=300)
    expires_at = aware(actor, expires_at)
    if expires_at is not None and expires_at <= timezone.now():
        raise invalid("expiresAt", _("must be in the future"))
    with transaction.atomic():
        entry = DoNotCall.objects.select_for_update().filter(number=normalised).first()
        if entry is None:
            try:
                with transaction.atomic():
                    return DoNotCall.objects.create(
                        number=normalised,
                        reason=reason,
                        source=source,
                        expires_at=expires_at,
                        created_by=actor,
                    )
            except IntegrityError:
                entry = DoNotCall.objects.select_for_update().get(number=normalised)
        live = entry.deleted_at is None and (entry.expires_at is None or entry.expires_at > timezone.now())
        if live:
            # Listed again while on the list: why it is there (and whether the person texted STOP,
            # which START undoes) is kept unless a new reason is given, and the entry never ends
            # sooner than it did.
            if not reason:
                reason, source = entry.reason, entry.source
            if entry.expires_at is None or (expires_at is not None and expires_at < entry.expires_at):
                expires_at = entry.expires_at
        entry.reason, entry.source, entry.expires_at, entry.deleted_at = reason, source, expires_at, None
        entry.save(update_fields=["reason", "source", "expires_at", "deleted_at", "updated_at"])
        return entry


def dnc_find(actor: Any, number: str) -> DoNotCall | None:
    require(actor, DialerPerm.VIEW)
    return blocked(rules.e164(number, field="number"))


def dnc_removable(actor: Any, number: str) -> DoNotCall:
    require(actor, DialerPerm.MANAGE)
    normalised = rules.e164(number, field="number")
    entry = DoNotCall.objects.restrict(actor, "delete").filter(number=normalised).first()
    if entry is None:
        raise invalid("number", _("{number} is not on the do-not-call list"), number=normalised)
    return entry


def dnc_remove(actor: Any, number: str) -> DoNotCall:
    entry = dnc_removable(actor, number)
    entry.trash(actor)
    return entry


def pronunciation_save(actor: Any, *, term: str, say_as: str) -> Pronunciation | None:
    """`say_as` empty removes the term's pronunciation; None then."""
    require(actor, DialerPerm.MANAGE)
    term = clean.text(term, field="term", limit=100, required=True)
    say_as = clean.text(say_as, field="sayAs", limit=200)
    found = Pronunciation.objects.filter(term__iexact=term).first()
    if not say_as:
        if found is None:
            raise invalid("term", _("{term} has no pronunciation to remove"), term=term)
        found.delete()
        return None
    if found is None:
        return Pronunciation.objects.create(term=term, say_as=say_as, created_by=actor)
    found.term, found.say_as = term, say_as
    found.save(update_fields=["term", "say_as", "updated_at"])
    return found


def spoken(text: str) -> str:
    """`text` as the voice says it: each saved term (whole words, any case) replaced by its alias."""
    for entry in Pronunciation.objects.filter(deleted_at__isnull=True).order_by("-term"):
        # The alias as a template with its backslashes escaped: said as written, never a group.
        alias = entry.say_as.replace("\\", "\\\\")
        text = re.sub(rf"(?<!\w){re.escape(entry.term)}(?!\w)", alias, text, flags=re.IGNORECASE)
    return text


def _voice() -> str:
    return str(settings.ATRIUM_DIALER_VOICE)


# --- the provider's callbacks -----------------------------------------------------------------------


def verified(url: str, params: dict[str, str], signature: str) -> bool:
    """The callback was signed by the provider with the configured auth token."""
    token = setting("ATRIUM_DIALER_AUTH_TOKEN")
    if not token or not signature:
        return False
    return hmac.compare_digest(providers.signature(token, url, params), signature)


def first_time(url: str, params: dict[str, str], sid: str) -> bool:
    """True the first time this very callback arrives; a repeated delivery is acted on once."""
    digest = hashlib.sha256((url + repr(sorted(params.items()))).encode()).hexdigest()
    try:
        with transaction.atomic():
            Callback.objects.create(digest=digest, sid=sid[:64])
    except IntegrityError:
        return False
    return True


def twiml_for(params: dict[str, str]) -> str | None:
    """What the call says, asked by the provider once it is answered: the voicemail after a
    machine's greeting ended (answering-machine detection), the script to a person. None for a
    call not (yet) known here."""
    call = Call.objects.filter(sid=params.get("CallSid", "")).first()
    if call is None:
        return None
    answered_by = params.get("AnsweredBy", "")[:30]
    fields = ["updated_at"]
    if answered_by:
        call.answered_by = answered_by
        fields.append("answered_by")
    if call.status in (Call.Status.QUEUED, Call.Status.RINGING):
        call.status = Call.Status.IN_PROGRESS
        fields.append("status")
    voice = _voice()
    if call.machine:
        if call.voicemail and answered_by.startswith("machine_end"):
            call.voicemail_left_at = timezone.now()
            fields.append("voicemail_left_at")
            call.save(update_fields=fields)
            return providers.say(spoken(call.voicemail), voice=voice)
        call.save(update_fields=fields)
        return '<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>'
    call.save(update_fields=fields)
    return providers.say(spoken(call.script), voice=voice)


def status_callback(params: dict[str, str]) -> None:
    """A call's or a text message's new status; once a call is over, its duration and the price
    the provider charged (read from the call's resource)."""
    if "MessageSid" in params and "CallSid" not in params:
        _message_status(params)
        return
    call = Call.objects.filter(sid=params.get("CallSid", "")).first()
    if call is None:
        logger.info("status callback for an unknown call")
        return
    status = params.get("CallStatus", "")
    if status not in CALL_STATUSES:
        return
    if call.status in TERMINAL_CALL and status not in TERMINAL_CALL:
        return  # a late "ringing" after the end changes nothing
    call.status = status
    if params.get("AnsweredBy"):
        call.answered_by = params["AnsweredBy"][:30]
    duration = providers.seconds_of(params.get("CallDuration", ""))
    if duration is not None:
        call.duration_seconds = duration
    if status in TERMINAL_CALL:
        call.ended_at = call.ended_at or timezone.now()
        try:
            priced = providers.provider("the status callback").fetch_call(call.sid)
        except errors.DialerProviderFailed as error:
            logger.warning("call price not read: %s", error)
        else:
            call.price, call.price_unit = priced.price, priced.price_unit
            if call.duration_seconds is None and priced.duration is not None:
                call.duration_seconds = priced.duration
    call.save()


def _message_status(params: dict[str, str]) -> None:
    message = Message.objects.filter(sid=params.get("MessageSid", "")).first()
    status = params.get("MessageStatus") or params.get("SmsStatus") or ""
    if message is None or status not in MESSAGE_STATUSES:
        return
    message.status = status[:12]
    if status in ("delivered", "undelivered", "failed"):
        try:
            priced = providers.provider("the status callback").fetch_message(message.sid)
        except errors.DialerProviderFailed as error:
            logger.warning("text message price not read: %s", error)
        else:
            message.price, message.price_unit = priced.price, priced.price_unit
    message.save(update_fields=["status", "price", "price_unit", "updated_at"])


def inbound_message(params: dict[str, str]) -> Message | None:
    """A text message to one of the account's numbers: kept (its owner: whoever last texted that
    number from here), and a STOP word puts the sender on the do-not-call list at once."""
    sid, sender = params.get("MessageSid", ""), params.get("From", "")
    if not sid or not sender:
        return None
    body = params.get("Body", "")[:1600]
    last = (
        Message.objects.filter(to_number=sender, direction=Message.Direction.OUTBOUND).order_by("-id").first()
    )
    message, _made = Message.objects.get_or_create(
        sid=sid[:64],
        defaults={
            "direction": Message.Direction.INBOUND,
            "to_number": params.get("To", "")[:20],
            "from_number": sender[:20],
            "body": body,
            "status": "received",
            "segments": rules.segments(body) if body else 1,
            "created_by": last.created_by if last is not None else None,
        },
    )
    if rules.is_start(body):
        # START undoes the sender's own STOP, not an entry a person of the workspace made.
        entry = blocked(rules.searched_number(sender))
        if entry is not None and entry.source == DoNotCall.Source.SMS_STOP:
            entry.trash(None)
    elif rules.is_stop(body):
        try:
            dnc_add(
                None,
                number=sender,
                reason=_("texted {word}").format(word=body.strip().upper()[:20]),
                source=DoNotCall.Source.SMS_STOP,
            )
        except AppError:  # a sender's number the rules refuse (a short code): the message is still kept
            logger.warning("STOP from a number that is not E.164", exc_info=True)
    return message
