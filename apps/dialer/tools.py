"""The Agent Dialer's tools (SPEC 4.7): thin doors onto apps.dialer.services. Every rule of a call
or text message is checked before the user is asked to confirm it."""

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

from django.conf import settings
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, id_field, page_of
from apps.core.actors import require
from apps.core.errors import FieldRequired
from apps.dialer import errors, providers, rules, services
from apps.dialer.models import Call, DoNotCall, Message, Pronunciation
from apps.dialer.permissions import DialerPerm

CallId = Annotated[int, id_field("searchCallLogs")]
Number = Annotated[str, Field(min_length=3, max_length=40, description="E.164, +14155550123")]
CallerId = Annotated[
    str, Field(max_length=40, description="From getDialerSummary's callerIds; default: the first")
]
CalleeZone = Annotated[
    str,
    Field(
        max_length=64,
        description="The callee's time zone, from their address; default: the number's country's",
    ),
]


class CallOut(Out):
    id: int
    to: str
    caller_id: str
    contact_name: str
    status: str
    answered_by: str
    voicemail_left: bool
    duration_seconds: int | None
    cost: Decimal | None
    currency: str
    created_at: datetime
    ended_at: datetime | None

    @classmethod
    def of(cls, call: Call) -> "CallOut":
        return cls(
            id=call.pk,
            to=call.to_number,
            caller_id=call.from_number,
            contact_name=call.contact_name,
            status=call.status,
            answered_by=call.answered_by,
            voicemail_left=call.voicemail_left_at is not None,
            duration_seconds=call.duration_seconds,
            cost=call.price,
            currency=call.price_unit,
            created_at=call.created_at,
            ended_at=call.ended_at,
        )


class CallDetailOut(CallOut):
    script: str
    voicemail: str
    consent: str
    callee_time_zone: str
    provider_id: str


class CallerIdsOut(Out):
    provider: str = Field(description="twilio or signalwire; empty: none configured")
    configured: bool
    message: str
    caller_ids: list[str]
    calling_hours: str
    default_region: str
    consent_rule: str
    calls_this_month: int
    spent_this_month: dict[str, Decimal]
    do_not_call_entries: int
    pronunciations: int
    warnings: list[str]


@tool(
    "getDialerSummary",
    permission=DialerPerm.VIEW,
    title="Get the dialer's summary",
    read_only=True,
    markers=Marker.MANDATORY_FIRST_CALL,
)
def get_dialer_summary(ctx: ToolContext) -> CallerIdsOut:
    """The dialer at a glance: the phone provider set, caller ids, calling hours, consent rule.
    Also this month's calls and their cost."""
    name, warnings, caller_ids = providers.provider_name(), [], []
    if name:
        message = _("Calls and text messages go through {provider}.").format(provider=name)
        try:
            caller_ids = providers.provider("getDialerSummary").caller_ids()
        except errors.DialerProviderFailed as error:
            warnings.append(str(error))
    else:
        message = str(
            errors.DialerNotConfigured(tool=_("The dialer"), missing=", ".join(providers.missing()))
        )
    month = timezone.now().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    calls = Call.objects.restrict(ctx.actor).filter(created_at__gte=month)
    spent: dict[str, Decimal] = {}
    for rows in (calls, Message.objects.restrict(ctx.actor).filter(created_at__gte=month)):
        for entry in rows.exclude(price=None).values("price_unit").annotate(total=Sum("price")):
            unit = entry["price_unit"] or "USD"
            spent[unit] = spent.get(unit, Decimal(0)) + entry["total"]
    return CallerIdsOut(
        provider=name,
        configured=bool(name),
        message=message,
        caller_ids=caller_ids,
        calling_hours=_("{start}:00 to {end}:00 at the callee's location").format(
            start=settings.ATRIUM_DIALER_CALLING_START, end=settings.ATRIUM_DIALER_CALLING_END
        ),
        default_region=settings.ATRIUM_DIALER_DEFAULT_REGION,
        consent_rule=_(
            "Calls speak with a generated voice: makeCall needs `consent`, how and when the callee gave "
            "prior express consent. Numbers on the do-not-call list, emergency and premium numbers are "
            "refused."
        ),
        calls_this_month=calls.count(),
        spent_this_month=spent,
        do_not_call_entries=DoNotCall.objects.restrict(ctx.actor).count(),
        pronunciations=Pronunciation.objects.restrict(ctx.actor).count(),
        warnings=warnings,
    )


def _call_allowed(
    ctx: ToolContext,
    *,
    to: str,
    script: str,
    consent: str = "",
    voicemail: str = "",
    caller_id: str = "",
    contact_name: str = "",
    callee_time_zone: str = "",
) -> bool:
    services.call_check(
        ctx.actor,
        to=to,
        caller_id=caller_id,
        callee_time_zone=callee_time_zone,
        script=script,
        consent=consent,
        voicemail=voicemail,
        contact_name=contact_name,
    )
    return True


@tool(
    "makeCall",
    permission=DialerPerm.CALL,
    title="Place a phone call",
    markers=Marker.HIGH_RISK,
    confirm_if=_call_allowed,
    open_world=True,
)
def make_call(
    ctx: ToolContext,
    *,
    to: Number,
    script: Annotated[str, Field(max_length=4000, description="What the voice says to a person")],
    consent: Annotated[
        str, Field(max_length=300, description="How and when the callee consented to the call")
    ] = "",
    voicemail: Annotated[
        str, Field(max_length=2000, description="Said to an answering machine after its greeting")
    ] = "",
    caller_id: CallerId = "",
    contact_name: Annotated[str, Field(max_length=200, description="Who is called, for the log")] = "",
    callee_time_zone: CalleeZone = "",
) -> CallOut:
    """Place an outbound phone call that speaks a script with a generated voice (a text: sendSms).
    A voicemail is left if a machine answers."""
    call = services.call_place(
        ctx.actor,
        to=to,
        script=script,
        consent=consent,
        voicemail=voicemail,
        caller_id=caller_id,
        contact_name=contact_name,
        callee_time_zone=callee_time_zone,
    )
    return CallOut.of(call)


@tool("endCall", permission=DialerPerm.CALL, title="End a phone call", idempotent=True, open_world=True)
def end_call(ctx: ToolContext, *, call_id: CallId) -> CallOut:
    """Hang up a call in progress, or cancel one still ringing."""
    call = Call.objects.fetch(ctx.actor, call_id, "change")
    return CallOut.of(services.call_end(ctx.actor, call))


class VoicemailOut(Out):
    call: CallOut
    left: bool = Field(description="Said now; false: said if a machine answers")


def _voicemail_allowed(ctx: ToolContext, *, call_id: int, message: str) -> bool:
    services.voicemail_check(ctx.actor, Call.objects.fetch(ctx.actor, call_id, "change"), message)
    return True


@tool(
    "leaveVoicemail",
    permission=DialerPerm.CALL,
    title="Leave a voicemail",
    markers=Marker.HIGH_RISK,
    confirm_if=_voicemail_allowed,
    open_world=True,
)
def leave_voicemail(
    ctx: ToolContext,
    *,
    call_id: CallId,
    message: Annotated[str, Field(max_length=2000, description="What the voice says after the beep")],
) -> VoicemailOut:
    """Leave a voicemail on a call an answering machine picked up, or on a ringing call if one does."""
    call = Call.objects.fetch(ctx.actor, call_id, "change")
    left = services.voicemail_leave(ctx.actor, call, message)
    return VoicemailOut(call=CallOut.of(call), left=left)


class MessageOut(Out):
    id: int
    direction: str
    to: str
    sender: str = Field(description="The caller id it was sent from")
    body: str
    status: str
    segments: int
    cost: Decimal | None
    currency: str
    created_at: datetime

    @classmethod
    def of(cls, message: Message) -> "MessageOut":
        return cls(
            id=message.pk,
            direction=message.direction,
            to=message.to_number,
            sender=message.from_number,
            body=message.body,
            status=message.status,
            segments=message.segments,
            cost=message.price,
            currency=message.price_unit,
            created_at=message.created_at,
        )


def _sms_allowed(
    ctx: ToolContext, *, to: str, body: str, caller_id: str = "", callee_time_zone: str = ""
) -> bool:
    services.sms_check(ctx.actor, to=to, body=body, caller_id=caller_id, callee_time_zone=callee_time_zone)
    return True


@tool(
    "sendSms",
    permission=DialerPerm.CALL,
    title="Send a text message",
    markers=Marker.HIGH_RISK,
    confirm_if=_sms_allowed,
    open_world=True,
)
def send_sms(
    ctx: ToolContext,
    *,
    to: Number,
    body: Annotated[str, Field(max_length=1600, description="The text; 160 characters a segment")],
    caller_id: CallerId = "",
    callee_time_zone: CalleeZone = "",
) -> MessageOut:
    """Send a text message (SMS) to a phone number (a spoken call: makeCall)."""
    return MessageOut.of(
        services.sms_send(ctx.actor, to=to, body=body, caller_id=caller_id, callee_time_zone=callee_time_zone)
    )


@tool("getCallDetail", permission=DialerPerm.VIEW, title="Get a call's detail", read_only=True)
def get_call_detail(ctx: ToolContext, *, call_id: CallId) -> CallDetailOut:
    """One call in full: status, who answered, what was said, the voicemail, duration and cost."""
    call = Call.objects.fetch(ctx.actor, call_id)
    return CallDetailOut(
        **CallOut.of(call).model_dump(),
        script=call.script,
        voicemail=call.voicemail,
        consent=call.consent,
        callee_time_zone=call.callee_zone,
        provider_id=call.sid,
    )


class LogEntryOut(Out):
    kind: Literal["call", "sms"]
    id: int
    to: str
    sender: str
    status: str
    text: str = Field(description="The call's script or the message")
    cost: Decimal | None
    currency: str
    created_at: datetime


@tool("searchCallLogs", permission=DialerPerm.VIEW, title="Search call and text message logs", read_only=True)
def search_call_logs(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="A number, a name or words said")] = "",
    kind: Annotated[Literal["all", "call", "sms"], Field(description="Calls, text messages or both")] = "all",
    status: Annotated[str, Field(max_length=12, description="completed, no-answer, delivered...")] = "",
    since: Annotated[datetime | None, Field(description="Placed at or after")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> Page[LogEntryOut]:
    """Search past calls and text messages, newest first: by number, name, words, status or date."""
    words = query.strip()
    digits = "".join(ch for ch in words if ch.isdigit())
    calls, messages = Call.objects.restrict(ctx.actor), Message.objects.restrict(ctx.actor)
    if words:
        said = Q(contact_name__icontains=words) | Q(script__icontains=words)
        written = Q(body__icontains=words)
        numbers = {digits, rules.searched_number(words)} - {""} if len(digits) >= 3 else set()
        for number in numbers:
            said |= Q(to_number__contains=number)
            written |= Q(to_number__contains=number) | Q(from_number__contains=number)
        calls, messages = calls.filter(said), messages.filter(written)
    if status:
        calls, messages = calls.filter(status=status), messages.filter(status=status)
    since = services.aware(ctx.actor, since)
    if since:
        calls, messages = calls.filter(created_at__gte=since), messages.filter(created_at__gte=since)
    if kind == "sms":
        calls = calls.none()
    if kind == "call":
        messages = messages.none()
    window = offset + limit
    entries = [
        LogEntryOut(
            kind="call",
            id=c.pk,
            to=c.to_number,
            sender=c.from_number,
            status=c.status,
            text=c.script[:300],
            cost=c.price,
            currency=c.price_unit,
            created_at=c.created_at,
        )
        for c in calls.order_by("-created_at")[:window]
    ] + [
        LogEntryOut(
            kind="sms",
            id=m.pk,
            to=m.to_number,
            sender=m.from_number,
            status=m.status,
            text=m.body[:300],
            cost=m.price,
            currency=m.price_unit,
            created_at=m.created_at,
        )
        for m in messages.order_by("-created_at")[:window]
    ]
    entries.sort(key=lambda entry: entry.created_at, reverse=True)
    return page_of(entries[offset:window], total=calls.count() + messages.count(), limit=limit, offset=offset)


class DoNotCallOut(Out):
    number: str
    reason: str
    source: str
    expires_at: datetime | None
    created_at: datetime


class DoNotCallAnswer(Out):
    action: str
    listed: bool = Field(description="Whether the number is on the list now (add, remove, check)")
    entries: list[DoNotCallOut]


def _dnc(entry: DoNotCall) -> DoNotCallOut:
    return DoNotCallOut(
        number=entry.number,
        reason=entry.reason,
        source=entry.source,
        expires_at=entry.expires_at,
        created_at=entry.created_at,
    )


def _removal(ctx: ToolContext, *, action: str, number: str = "", **_given: object) -> bool:
    """Only a removal is confirmed (the number may then be called again), once it is on the list."""
    if action != "remove":
        return False
    services.dnc_removable(ctx.actor, number)
    return True


@tool(
    "manageDoNotCall",
    permission=DialerPerm.VIEW,
    title="Manage the do-not-call list",
    markers=Marker.HIGH_RISK,
    confirm_if=_removal,
)
def manage_do_not_call(
    ctx: ToolContext,
    *,
    action: Annotated[Literal["add", "remove", "check", "list"], Field(description="remove is confirmed")],
    number: Annotated[str, Field(max_length=40, description="For add, remove, check")] = "",
    reason: Annotated[str, Field(max_length=300, description="Why, for add")] = "",
    expires_at: Annotated[datetime | None, Field(description="For add; default: never")] = None,
) -> DoNotCallAnswer:
    """Add a number to the do-not-call list, check or remove one, or list them (calls: makeCall).
    Only removal is confirmed."""
    if action == "list":
        rows = DoNotCall.objects.restrict(ctx.actor).order_by("number")[:500]
        return DoNotCallAnswer(action=action, listed=False, entries=[_dnc(entry) for entry in rows])
    if not number.strip():
        raise FieldRequired(field="number")
    if action == "add":
        entry = services.dnc_add(ctx.actor, number=number, reason=reason, expires_at=expires_at)
        return DoNotCallAnswer(action=action, listed=True, entries=[_dnc(entry)])
    if action == "remove":
        entry = services.dnc_remove(ctx.actor, number)
        return DoNotCallAnswer(action=action, listed=False, entries=[_dnc(entry)])
    found = services.dnc_find(ctx.actor, number)
    return DoNotCallAnswer(action=action, listed=found is not None, entries=[_dnc(found)] if found else [])


class PronunciationOut(Out):
    term: str
    say_as: str
    removed: bool


@tool("savePronunciation", permission=DialerPerm.MANAGE, title="Save a pronunciation", idempotent=True)
def save_pronunciation(
    ctx: ToolContext,
    *,
    term: Annotated[str, Field(max_length=100, description="A name or word as written")],
    say_as: Annotated[str, Field(max_length=200, description="How the voice says it; empty removes it")],
) -> PronunciationOut:
    """Teach the call voice how to say a name or word ("Nguyen" as "Win"), for every call's script."""
    require(ctx.actor, DialerPerm.MANAGE)
    saved = services.pronunciation_save(ctx.actor, term=term, say_as=say_as)
    if saved is None:
        return PronunciationOut(term=term.strip(), say_as="", removed=True)
    return PronunciationOut(term=saved.term, say_as=saved.say_as, removed=False)
