"""Customer Service: tickets of the workspace's own customers, on the mail app. Workspace schema.

A `Ticket` is a record every person of the area sees (`visibility="workspace"`); its comments,
status changes, escalations and satisfaction rating follow it. A customer's e-mail to a support
mailboxes (`SupportMailbox`) opens a ticket or threads into one (apps.support.inbound): by the
mail app's thread, by In-Reply-To / References naming a comment's Message-ID, or by the ticket's
reference in the subject ("[#12]"). Public replies go out through the mail app's outbox with the
threading headers; internal notes are never e-mailed.

SLA: the ticket's policy (`SlaPolicy`, one per priority) gives the first-reply and resolution
targets in business hours (its working days and hours, in its time zone, without its country's
public holidays: apps.support.hours). The clocks pause while a ticket is pending or on hold; the
due times move on by the business time paused when it resumes.
"""

from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core import history
from apps.core.records import Access, OwnedRecord, Record, RecordQuerySet, live_once
from apps.support.permissions import SupportPerm

USER = settings.AUTH_USER_MODEL


class Priority(models.TextChoices):
    LOW = "low", _("low")
    NORMAL = "normal", _("normal")
    HIGH = "high", _("high")
    URGENT = "urgent", _("urgent")


class SlaPolicy(Record):
    """Targets for one priority, in business hours of a working calendar."""

    access = Access(
        SupportPerm,
        visibility="workspace",
        change="customerservice.admin",
        label=_("SLA policy"),
        find_with="getSupportSummary",
    )

    name = models.CharField(_("name"), max_length=120)
    priority = models.CharField(_("priority"), max_length=10, choices=Priority.choices)
    first_reply_hours = models.DecimalField(
        _("first reply within (business hours)"), max_digits=6, decimal_places=2
    )
    resolution_hours = models.DecimalField(
        _("resolved within (business hours)"), max_digits=6, decimal_places=2
    )
    time_zone = models.CharField(_("time zone"), max_length=64, default="UTC")
    workdays = models.JSONField(_("working days"), default=list)  # ISO weekdays, 1 = Monday
    day_starts = models.TimeField(_("working day starts"), default="09:00")
    day_ends = models.TimeField(_("working day ends"), default="17:00")
    # A country's code ("GB"), or a region's ("GB-ENG", "DE-BY", "US-CA": ISO 3166-2).
    holidays_country = models.CharField(_("public holidays of"), max_length=10, blank=True)

    class Meta:
        ordering = ["priority", "id"]
        verbose_name = _("SLA policy")
        verbose_name_plural = _("SLA policies")
        constraints = [live_once("support_sla_priority_once", "priority")]

    def __str__(self) -> str:
        return self.name


class SupportMailbox(models.Model):
    """A mailbox of the mail app whose inbound mail becomes tickets, and replies leave from."""

    mailbox = models.OneToOneField("mail.Mailbox", on_delete=models.CASCADE, related_name="+")
    # Inbound messages older than this stay mail: only what arrives after it was chosen is a ticket.
    since = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("support mailbox")

    def __str__(self) -> str:
        return f"support mailbox {self.mailbox_id}"


class SupportMailboxChange(history.Trail):
    """Who chose which support mailbox (or none) and when: its mail becomes tickets every agent
    reads, and replies leave from it. Addresses, not keys: the trail outlives the mailboxes."""

    old_address = models.CharField(max_length=254, blank=True)
    new_address = models.CharField(max_length=254, blank=True)

    class Meta(history.Trail.Meta):
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.old_address or '-'} -> {self.new_address or '-'}"


class Ticket(Record):
    class Status(models.TextChoices):
        NEW = "new", _("new")
        OPEN = "open", _("open")
        PENDING = "pending", _("pending")
        ON_HOLD = "on_hold", _("on hold")
        SOLVED = "solved", _("solved")
        CLOSED = "closed", _("closed")

    class Channel(models.TextChoices):
        EMAIL = "email", _("e-mail")
        PHONE = "phone", _("phone")
        WEB = "web", _("web form")
        CHAT = "chat", _("chat")
        AGENT = "agent", _("agent")

    class Type(models.TextChoices):
        QUESTION = "question", _("question")
        INCIDENT = "incident", _("incident")
        PROBLEM = "problem", _("problem")
        TASK = "task", _("task")

    PAUSED = (Status.PENDING, Status.ON_HOLD)

    access = Access(SupportPerm, visibility="workspace", label=_("Ticket"), find_with="searchTickets")

    subject = models.CharField(_("subject"), max_length=300)
    requester_name = models.CharField(_("requester"), max_length=200, blank=True)
    requester_email = models.EmailField(_("requester e-mail"), max_length=254, blank=True)
    requester_contact = models.ForeignKey(
        "contacts.Contact", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    channel = models.CharField(_("channel"), max_length=10, choices=Channel.choices, default=Channel.EMAIL)
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.NEW)
    priority = models.CharField(
        _("priority"), max_length=10, choices=Priority.choices, default=Priority.NORMAL
    )
    assignee = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    department = models.ForeignKey(
        "departments.Department", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    tags = models.JSONField(_("tags"), default=list, blank=True)
    ticket_type = models.CharField(_("type"), max_length=10, choices=Type.choices, blank=True)
    mailbox = models.ForeignKey(
        "mail.Mailbox", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    thread = models.ForeignKey(
        "mail.Thread", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    follow_up_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="follow_ups"
    )
    # Merged into another ticket of the same request: closed, its thread and history moved there.
    merged_into = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="merged"
    )
    policy = models.ForeignKey(SlaPolicy, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    first_reply_due = models.DateTimeField(null=True, blank=True)
    first_replied_at = models.DateTimeField(null=True, blank=True)
    resolution_due = models.DateTimeField(null=True, blank=True)
    paused_at = models.DateTimeField(null=True, blank=True)
    solved_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    status_changed_at = models.DateTimeField(default=timezone.now)
    status_changed_by = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The SLA warnings already sent ("first_reply:near", "resolution:breach"...), each once.
    sla_notified = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("ticket")
        indexes = [
            models.Index(fields=["status", "priority"], name="support_ticket_status_idx"),
            models.Index(fields=["requester_email"], name="support_ticket_requester_idx"),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.subject}"

    @property
    def reference(self) -> str:
        return f"[#{self.pk}]"

    # A ticket's clocks stop when it is solved or closed (a merge closes it): a ticket ended
    # in time is not breached later, with or without a reply (a call solved on the phone).
    def first_reply_breached(self, now: datetime | None = None) -> bool:
        return self._breached(self.first_reply_due, self.first_replied_at or self._ended_at, now)

    def resolution_breached(self, now: datetime | None = None) -> bool:
        return self._breached(self.resolution_due, self._ended_at, now)

    @property
    def _ended_at(self) -> datetime | None:
        return self.solved_at or self.closed_at

    def _breached(self, due: datetime | None, met_at: datetime | None, now: datetime | None) -> bool:
        """Whether a target due at `due` is missed: met (or its clock stopped) after it, or not met
        and past it while the clock runs (a paused ticket's clock stands still)."""
        if due is None:
            return False
        if met_at is not None:
            return met_at > due
        return self.paused_at is None and (now or timezone.now()) > due


class TicketComment(models.Model):
    """A public reply (to or from the requester) or an internal note (never e-mailed)."""

    class Author(models.TextChoices):
        AGENT = "agent", _("agent")
        REQUESTER = "requester", _("requester")

    access = Access(SupportPerm, through="ticket", label=_("Comment"), find_with="searchTickets")

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="comments")
    public = models.BooleanField(default=True)
    author_kind = models.CharField(max_length=10, choices=Author.choices)
    author = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    author_email = models.CharField(max_length=254, blank=True)
    body = models.TextField()
    message = models.ForeignKey(
        "mail.Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    email_id = models.CharField(max_length=998, blank=True)  # the e-mail's Message-ID, either way
    outgoing = models.ForeignKey(
        "mail.Outgoing", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["email_id"], name="support_comment_emailid_idx")]

    def __str__(self) -> str:
        return f"comment {self.pk}"

    @property
    def author_name(self) -> str:
        """Who wrote it, as the thread shows them: the agent (or the requester signed in) by name,
        an e-mail's sender by the requester's name when it is their address."""
        if self.author is not None:
            return str(self.author.get_full_name())
        ticket = self.ticket
        theirs = not self.author_email or self.author_email.lower() == ticket.requester_email.lower()
        if self.author_kind == self.Author.REQUESTER and ticket.requester_name and theirs:
            return ticket.requester_name
        return self.author_email


class StatusChange(history.Trail):
    """Who moved a ticket from one status to another (and through which door), and when."""

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="status_changes")
    old = models.CharField(max_length=10, blank=True)
    new = models.CharField(max_length=10)

    class Meta(history.Trail.Meta):
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.old} -> {self.new}"


class TicketEvent(history.Event):
    """A ticket's history of changes besides its status (StatusChange): its priority, assignee,
    tags and type, and merges; who made each, when, and through which door."""

    class Kind(models.TextChoices):
        UPDATED = "updated", _("updated")
        MERGED = "merged", _("merged")
        ESCALATED = "escalated", _("escalated")

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=Kind.choices)

    class Meta(history.Event.Meta):
        indexes = [models.Index(fields=["ticket", "-at"], name="support_event_ticket_at")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.ticket_id}"


class Escalation(models.Model):
    access = Access(SupportPerm, through="ticket", label=_("Escalation"), find_with="searchTickets")

    ticket = models.ForeignKey(Ticket, on_delete=models.CASCADE, related_name="escalations")
    level = models.PositiveSmallIntegerField(default=1)
    reason = models.TextField()
    department = models.ForeignKey(
        "departments.Department", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    owner = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    due_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    resolution = models.TextField(blank=True)
    resolved_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    resolved_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"escalation {self.pk}"


class SatisfactionRating(models.Model):
    """The requester's rating of a solved ticket (CSAT): good or bad, and why."""

    ticket = models.OneToOneField(Ticket, on_delete=models.CASCADE, related_name="satisfaction")
    good = models.BooleanField()
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"rating {self.pk}"


class CannedReply(OwnedRecord):
    """A reply written once and used on many tickets (a macro): its body with placeholders
    (apps.support.placeholders), filled in for the ticket it is applied to, and what applying it
    also does to the ticket (a status, a priority, tags added). A personal one (`private`) is its
    owner's alone, whatever their role; a shared one (`workspace`) every person of the area sees,
    and only the area's administrators write (`workspace_kept_by`)."""

    access = Access(
        SupportPerm,
        # Nobody sees every row: another person's own canned replies are theirs alone.
        admins=False,
        # The shared ones are every agent's words: the area's administrators write them.
        workspace_kept_by=SupportPerm.ADMIN,
        label=_("Canned reply"),
        find_with="listCannedReplies",
    )

    title = models.CharField(_("title"), max_length=120)
    body = models.TextField(_("body"))
    set_status = models.CharField(_("then set the status to"), max_length=10, blank=True)
    set_priority = models.CharField(_("then set the priority to"), max_length=10, blank=True)
    add_tags = models.JSONField(_("then add the tags"), default=list, blank=True)
    uses = models.PositiveIntegerField(_("times used"), default=0)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)

    class Meta:
        ordering = ["title", "id"]
        verbose_name = _("canned reply")
        verbose_name_plural = _("canned replies")

    def __str__(self) -> str:
        return self.title

    @property
    def shared(self) -> bool:
        return self.visibility == "workspace"
