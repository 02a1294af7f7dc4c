"""Events: planned on a pipeline of stages, with an agenda, attendees, suppliers, hotel room
blocks, budget lines and travel plans. Workspace schema.

An `Event` is an owned, shareable record (apps.core.records); its sessions, attendees, suppliers
and hotel blocks follow it (`through="event"`). Attendees' needs (dietary, accessibility) are a
row of their own, `AttendeeNeeds`, read only with the `events.needs` permission (the attendee's
access declares it: `fields`) and removed once the event is over (apps.events.tasks). Amounts are
kept in the currency they were given in, with the rate to the event's currency on their date
(apps.accounting.api.rate).
"""

import uuid
from typing import Any

from django.conf import settings
from django.contrib.postgres.constraints import ExclusionConstraint
from django.contrib.postgres.fields import DateTimeRangeField, RangeOperators
from django.db import models
from django.db.models import F, Func, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import pipelines
from apps.core.records import Access, OwnedRecord, Record, name_once
from apps.core.sharing import ShareBase
from apps.events.permissions import EventsPerm

USER = settings.AUTH_USER_MODEL


class EventPipeline(pipelines.Pipeline):
    """A planning pipeline: the stages an event goes through (a Kanban of events)."""

    access = Access(
        EventsPerm,
        visibility="workspace",
        label=_("Event pipeline"),
        find_with="getEventPlanningOverview",
    )

    class Meta(pipelines.Pipeline.Meta):
        verbose_name = _("event pipeline")
        constraints = [name_once("events_pipeline_name_once")]


class Stage(pipelines.Stage):
    pipeline = models.ForeignKey(EventPipeline, on_delete=models.CASCADE, related_name="stages")

    class Meta(pipelines.Stage.Meta):
        constraints = pipelines.Stage.once("events_stage")


class Event(OwnedRecord):
    access = Access(
        EventsPerm,
        shares=True,
        label=_("Event"),
        find_with="searchEvents or listEvents",
        trash_hint=_("Whoever may delete it can restore it from the Events page."),
    )

    name = models.CharField(_("name"), max_length=200)
    description = models.TextField(_("description"), blank=True)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    time_zone = models.CharField(_("time zone"), max_length=64)
    venue = models.CharField(_("venue"), max_length=300, blank=True)
    capacity = models.PositiveIntegerField(_("capacity"), null=True, blank=True)
    stage = models.ForeignKey(
        Stage, on_delete=models.PROTECT, null=True, blank=True, related_name="events", verbose_name=_("stage")
    )
    currency = models.CharField(_("currency"), max_length=3, default="EUR")
    # iCalendar: the same UID for every invitation of this event, SEQUENCE up when it moves.
    ical_uid = models.CharField(max_length=120, unique=True, default="")
    ical_sequence = models.PositiveIntegerField(default=0)
    needs_removed_at = models.DateTimeField(null=True, blank=True)
    # Called off: kept with its agenda and attendees, who were sent the cancellation.
    cancelled_at = models.DateTimeField(_("cancelled"), null=True, blank=True)

    class Meta:
        ordering = ["starts_at", "id"]
        verbose_name = _("event")
        constraints = [
            models.CheckConstraint(condition=Q(ends_at__gt=F("starts_at")), name="events_ends_after_start")
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: object, **kwargs: object) -> None:
        if not self.ical_uid:
            self.ical_uid = f"{uuid.uuid4()}@atrium-events"
        super().save(*args, **kwargs)  # type: ignore[arg-type]


class EventShare(ShareBase):
    item = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="shares")


class TimeSpan(Func):
    """PostgreSQL's `tstzrange(start, end)`: from the start, up to but not including the end, so
    that a session ending at 10:00 and one starting at 10:00 do not overlap."""

    function = "TSTZRANGE"
    output_field = DateTimeRangeField()


def _child(label: Any, find_with: str) -> Access:
    return Access(EventsPerm, through="event", label=label, find_with=find_with)


class Session(Record):
    """A session of an event's agenda. A room is not used by two sessions of the event at once:
    the database holds it (an exclusion constraint over the time span; btree_gist, made in the
    public schema by apps.tenancy's migrations), so two agendas written at the same moment cannot
    both take it. A session's times never change once it is added: its speakers keep a copy."""

    access = _child(_("Session"), "getEvent")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="sessions")
    title = models.CharField(_("title"), max_length=200)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    room = models.CharField(_("room"), max_length=120, blank=True)
    capacity = models.PositiveIntegerField(_("capacity"), null=True, blank=True)

    class Meta:
        ordering = ["starts_at", "id"]
        verbose_name = _("session")
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=F("starts_at")), name="events_session_ends_after_start"
            ),
            ExclusionConstraint(
                name="events_room_once_at_a_time",
                expressions=[
                    ("event", RangeOperators.EQUAL),
                    (Lower("room"), RangeOperators.EQUAL),
                    (TimeSpan("starts_at", "ends_at"), RangeOperators.OVERLAPS),
                ],
                condition=Q(deleted_at__isnull=True) & ~Q(room=""),
            ),
        ]

    def __str__(self) -> str:
        return self.title


class Speaker(models.Model):
    """A speaker of a session. The same person (by e-mail) does not speak in two sessions at once,
    in any event of the workspace: the database holds it, over a copy of the session's times (a
    constraint reads one table), so two events' agendas written at the same moment cannot both
    book them. The copy may be empty on rows written before it existed; those are left out."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="speakers")
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("e-mail"), max_length=254)
    starts_at = models.DateTimeField(_("starts"), null=True, blank=True)
    ends_at = models.DateTimeField(_("ends"), null=True, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("speaker")
        constraints = [
            models.UniqueConstraint("session", Lower("email"), name="events_speaker_once"),
            ExclusionConstraint(
                name="events_speaker_once_at_a_time",
                expressions=[
                    (Lower("email"), RangeOperators.EQUAL),
                    (TimeSpan("starts_at", "ends_at"), RangeOperators.OVERLAPS),
                ],
                condition=Q(starts_at__isnull=False, ends_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Attendee(Record):
    access = Access(
        EventsPerm,
        through="event",
        # Dietary and accessibility needs (`AttendeeNeeds`): special-category data.
        fields={"needs": EventsPerm.NEEDS},
        label=_("Attendee"),
        find_with="listEventAttendees",
    )

    class Status(models.TextChoices):
        INVITED = "invited", _("invited")
        REGISTERED = "registered", _("registered")
        WAITLISTED = "waitlisted", _("waitlisted")
        CANCELLED = "cancelled", _("cancelled")
        ATTENDED = "attended", _("attended")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="attendees")
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("e-mail"), max_length=254)
    organisation = models.CharField(_("organisation"), max_length=200, blank=True)
    type = models.CharField(_("type"), max_length=40, default="attendee")
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.INVITED)
    # Waitlisted people move up in the order they joined the list.
    waitlisted_at = models.DateTimeField(null=True, blank=True)
    invited_sequence = models.IntegerField(null=True, blank=True)
    invited_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("attendee")
        constraints = [models.UniqueConstraint("event", Lower("email"), name="events_attendee_once")]
        indexes = [models.Index(fields=["event", "status"], name="events_attendee_status_idx")]

    def __str__(self) -> str:
        return self.name


class AttendeeNeeds(models.Model):
    """Special-category data, kept minimal: seen only with events.needs, removed after the event."""

    attendee = models.OneToOneField(Attendee, on_delete=models.CASCADE, related_name="needs")
    dietary = models.CharField(_("dietary"), max_length=200, blank=True)
    accessibility = models.CharField(_("accessibility"), max_length=200, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("attendee needs")
        verbose_name_plural = _("attendee needs")

    def __str__(self) -> str:
        return f"needs of {self.attendee_id}"


class AttendeeImport(models.Model):
    """A committed import: the handle's digest makes a second commit give the first one's result."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="imports")
    handle_digest = models.CharField(max_length=64, unique=True)
    file_id = models.BigIntegerField()
    file_name = models.CharField(max_length=255)
    created = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    committed_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    committed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-committed_at", "-id"]
        verbose_name = _("attendee import")

    def __str__(self) -> str:
        return f"import of {self.file_name} into {self.event_id}"


class Supplier(Record):
    access = _child(_("Supplier"), "getEvent")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="suppliers")
    name = models.CharField(_("name"), max_length=200)
    service = models.CharField(_("service"), max_length=200)
    email = models.EmailField(_("e-mail"), max_length=254, blank=True)
    contract = models.CharField(_("contract"), max_length=200, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("supplier")

    def __str__(self) -> str:
        return self.name


class BudgetLine(models.Model):
    """A cost: planned, committed and actual amounts in `currency`, at `rate` to the event's."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="budget_lines")
    supplier = models.ForeignKey(
        Supplier, on_delete=models.CASCADE, null=True, blank=True, related_name="cost_lines"
    )
    category = models.CharField(_("category"), max_length=60)
    description = models.CharField(_("description"), max_length=200)
    currency = models.CharField(_("currency"), max_length=3)
    planned = models.DecimalField(_("planned"), default=0, max_digits=14, decimal_places=2)
    committed = models.DecimalField(_("committed"), default=0, max_digits=14, decimal_places=2)
    actual = models.DecimalField(_("actual"), default=0, max_digits=14, decimal_places=2)
    vat_rate = models.DecimalField(_("VAT %"), max_digits=5, decimal_places=2, default=0)
    rate = models.DecimalField(_("rate"), max_digits=18, decimal_places=8, default=1)
    rate_date = models.DateField(_("rate date"))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["category", "id"]
        verbose_name = _("budget line")

    def __str__(self) -> str:
        return self.description


class HotelBlock(Record):
    access = _child(_("Hotel block"), "manageEventHotels")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="hotel_blocks")
    hotel = models.CharField(_("hotel"), max_length=200)
    room_type = models.CharField(_("room type"), max_length=80)
    first_night = models.DateField(_("first night"))
    nights = models.PositiveSmallIntegerField(_("nights"))
    rooms = models.PositiveIntegerField(_("rooms a night"))
    rate = models.DecimalField(_("rate a night"), max_digits=14, decimal_places=2)
    currency = models.CharField(_("currency"), max_length=3)
    # One `currency` in the event's currency, on the first night (apps.accounting.api.rate).
    exchange_rate = models.DecimalField(_("rate"), max_digits=18, decimal_places=8, default=1)
    cut_off = models.DateField(_("cut-off"))
    attrition_percent = models.DecimalField(_("attrition %"), max_digits=5, decimal_places=2, default=0)

    class Meta:
        ordering = ["first_night", "hotel", "id"]
        verbose_name = _("hotel block")
        constraints = [
            models.CheckConstraint(condition=Q(nights__gte=1), name="events_block_a_night"),
            models.CheckConstraint(condition=Q(rooms__gte=1), name="events_block_a_room"),
        ]

    def __str__(self) -> str:
        return f"{self.hotel} ({self.room_type})"


class RoomAllocation(models.Model):
    """A room of a block for an attendee (and whom they share it with) for some of its nights."""

    block = models.ForeignKey(HotelBlock, on_delete=models.CASCADE, related_name="allocations")
    attendee = models.ForeignKey(Attendee, on_delete=models.CASCADE, related_name="room_allocations")
    sharing_with = models.ForeignKey(
        Attendee, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    first_night = models.DateField(_("first night"))
    nights = models.PositiveSmallIntegerField(_("nights"))
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["first_night", "id"]
        verbose_name = _("room allocation")
        constraints = [models.UniqueConstraint(fields=["block", "attendee"], name="events_allocation_once")]

    def __str__(self) -> str:
        return f"{self.attendee_id} in {self.block_id}"


class TravelPlan(models.Model):
    """What an attendee needs to get there and back, and the plan; nothing is booked here."""

    class Mode(models.TextChoices):
        FLIGHT = "flight", _("flight")
        TRAIN = "train", _("train")
        CAR = "car", _("car")
        OTHER = "other", _("other")

    class Status(models.TextChoices):
        NEEDED = "needed", _("needed")
        PLANNED = "planned", _("planned")
        NOT_NEEDED = "not_needed", _("not needed")

    attendee = models.OneToOneField(Attendee, on_delete=models.CASCADE, related_name="travel")
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.NEEDED)
    mode = models.CharField(_("mode"), max_length=20, choices=Mode.choices, blank=True)
    origin = models.CharField(_("from"), max_length=200, blank=True)
    arrive_by = models.DateTimeField(_("arrive by"), null=True, blank=True)
    depart_after = models.DateTimeField(_("depart after"), null=True, blank=True)
    plan = models.TextField(_("plan"), blank=True)
    updated_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("travel plan")

    def __str__(self) -> str:
        return f"travel of {self.attendee_id}"
