"""Calendars, their events, the people invited and the invitations sent. Workspace schema.

An event's `starts_at` / `ends_at` are instants (stored in UTC); `time_zone` is the zone its
wall-clock times and its recurrence are read in. A recurring event is one row with an RFC 5545
rule (`recurrence`, canonical: apps.core.recurrence); its occurrences are expanded when read,
and `recurrence_ends_at` (the end of the last occurrence, null: endless) lets a window query
skip what is over. Calendars and events are soft-deleted first (`deleted_at`: a calendar is
"archived", and hides its events with it).

Who sees what (apps.core.records): a calendar visible to the workspace is seen by everyone who
may see calendars, a private one by its owner and calendars.admin (no shares); an event by
whoever sees its calendar, and by the workspace people invited to it, who may not change it.
"""

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.calendars.errors import CalendarArchived, EventReadOnly
from apps.calendars.permissions import CalendarsPerm
from apps.core.records import Access, OwnedRecord, Record, Visibility, live_once
from apps.tenancy.models import validate_time_zone

USER = settings.AUTH_USER_MODEL


class Calendar(OwnedRecord):
    access = Access(
        CalendarsPerm,
        change=CalendarsPerm.MANAGE,
        delete=CalendarsPerm.DELETE,
        label=_("Calendar"),
        find_with="getCalendarSummary",
        trash_state=_("archived"),
        trash_error=CalendarArchived,
        trash_hint=_("Restore it with manageCalendar (action restore) first."),
    )

    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    colour = models.CharField(_("colour"), max_length=7, blank=True)
    time_zone = models.CharField(_("time zone"), max_length=64, validators=[validate_time_zone])
    # The kit's vocabulary, in the words that fit calendars (they have no shares, and anyone
    # may still see when the owner of a private one is busy).
    visibility = models.CharField(
        _("visible to"),
        max_length=20,
        choices=[
            (Visibility.WORKSPACE, _("everyone who may see calendars")),
            (Visibility.PRIVATE, _("its owner (others see only when it is busy)")),
        ],
        default=Visibility.WORKSPACE,
    )
    # A person's own calendar, made for them the first time they add an event without naming one.
    is_default = models.BooleanField(_("default calendar of its owner"), default=False)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("calendar")
        constraints = [
            live_once("calendars_one_default_per_owner", "owner", is_default=True),
        ]

    def __str__(self) -> str:
        return self.name


class Event(Record):
    access = Access(
        CalendarsPerm,
        through="calendar",
        also="attendees__user",  # the invited
        # Whoever changes events deletes them (calendars.delete is for archiving calendars).
        delete=CalendarsPerm.EDIT,
        read_only_error=EventReadOnly,
        label=_("Event"),
        find_with="searchCalendarEvents",
    )

    class Status(models.TextChoices):
        CONFIRMED = "confirmed", _("confirmed")
        TENTATIVE = "tentative", _("tentative")
        CANCELLED = "cancelled", _("cancelled")

    calendar = models.ForeignKey(Calendar, on_delete=models.CASCADE, related_name="events")
    # The iCalendar UID: stays the same across updates, so mail clients replace the invitation.
    uid = models.CharField(max_length=255, unique=True, default="")
    title = models.CharField(_("title"), max_length=300)
    description = models.TextField(_("description"), blank=True)
    location = models.CharField(_("location"), max_length=300, blank=True)
    starts_at = models.DateTimeField(_("starts"))
    ends_at = models.DateTimeField(_("ends"))
    all_day = models.BooleanField(_("all day"), default=False)
    time_zone = models.CharField(_("time zone"), max_length=64, validators=[validate_time_zone])
    recurrence = models.CharField(_("recurrence rule"), max_length=500, blank=True)
    # Starts of occurrences removed from the series (EXDATE).
    excluded = ArrayField(models.DateTimeField(), default=list, blank=True, verbose_name=_("excluded"))
    recurrence_ends_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.CONFIRMED)
    # False: the event does not make its people busy (TRANSP:TRANSPARENT).
    busy = models.BooleanField(_("shows as busy"), default=True)
    organizer = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # iCalendar SEQUENCE: raised when the time, place or rule changes, so invitations update.
    sequence = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["starts_at", "id"]
        verbose_name = _("event")
        indexes = [
            models.Index(fields=["starts_at"], name="calendars_event_starts"),
            models.Index(fields=["recurrence_ends_at"], name="calendars_event_series_end"),
            models.Index(fields=["calendar", "deleted_at"], name="calendars_event_calendar"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=F("starts_at")), name="calendars_event_ends_after"
            ),
        ]

    def __str__(self) -> str:
        return self.title

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.uid:
            self.uid = f"{uuid.uuid4()}@atrium"
        super().save(*args, **kwargs)

    @property
    def duration(self) -> timedelta:
        return self.ends_at - self.starts_at


class Attendee(models.Model):
    class Response(models.TextChoices):
        NEEDS_ACTION = "needs_action", _("no answer yet")
        ACCEPTED = "accepted", _("accepted")
        TENTATIVE = "tentative", _("maybe")
        DECLINED = "declined", _("declined")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="attendees")
    email = models.EmailField(_("e-mail"), max_length=254)
    name = models.CharField(_("name"), max_length=200, blank=True)
    # A person of the workspace, or a contact, when the address is theirs.
    user = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    contact = models.ForeignKey(
        "contacts.Contact",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="calendar_attendances",
    )
    optional = models.BooleanField(_("optional"), default=False)
    response = models.CharField(
        _("answer"), max_length=20, choices=Response.choices, default=Response.NEEDS_ACTION
    )
    responded_at = models.DateTimeField(_("answered"), null=True, blank=True)
    comment = models.CharField(_("comment"), max_length=500, blank=True)
    invited_at = models.DateTimeField(_("last invited"), null=True, blank=True)
    # The SEQUENCE of the last invitation sent, to tell who has an outdated one.
    invited_sequence = models.IntegerField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("attendee")
        constraints = [
            models.UniqueConstraint("event", Lower("email"), name="calendars_attendee_once"),
        ]
        indexes = [
            models.Index(Lower("email"), name="calendars_attendee_email"),
        ]

    def __str__(self) -> str:
        return f"{self.email} at {self.event_id}"


class Invitation(models.Model):
    """One e-mail with an iCalendar REQUEST, as sent (the record that it went out)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="invitations")
    attendee = models.ForeignKey(Attendee, on_delete=models.SET_NULL, null=True, related_name="invitations")
    recipient = models.EmailField(_("recipient"), max_length=254)
    subject = models.CharField(_("subject"), max_length=300)
    sequence = models.PositiveIntegerField(default=0)
    sent_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    sent_at = models.DateTimeField(_("sent"), default=timezone.now)

    class Meta:
        ordering = ["-sent_at", "-id"]
        verbose_name = _("invitation")

    def __str__(self) -> str:
        return f"invitation {self.pk} for {self.event_id}"


class CalendarFeed(models.Model):
    """An outside iCalendar feed imported into a calendar (manageCalendar, action subscribe). Its
    events are copied in, keyed by their UID, each time it is imported. A feed that needs a
    password keeps it encrypted (apps.core.encryption), as every credential of an outside service
    is kept; the person enters it on a page of ours, never in the conversation
    (apps.catalogue.secure_input)."""

    calendar = models.ForeignKey(Calendar, on_delete=models.CASCADE, related_name="feeds")
    url = models.CharField(_("feed URL"), max_length=2000)
    username = models.CharField(_("user name"), max_length=200, blank=True)
    password_encrypted = models.TextField(blank=True)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    last_imported_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("calendar feed")
        constraints = [models.UniqueConstraint(fields=["calendar", "url"], name="calendars_one_feed_per_url")]

    def __str__(self) -> str:
        return self.url
