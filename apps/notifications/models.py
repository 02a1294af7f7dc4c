"""Notifications to people of the workspace, and watchers on records. Workspace schema.

A notification belongs to one person (its recipient). It may point at a record of any area
(a generic link: content type + id, with the record's title at the time). Three moments matter:
`seen_at` (it was shown: openNotifications or the notifications page), `read_at` (the person
marked it read) and `archived_at` (put away; kept, but left out of lists unless asked for).

A watcher is a person who wants to hear of changes to a record: the area that owns the record
calls `services.entity_changed(...)` from its services, and every watcher but the person who made
the change gets a notification.

Who sees what (apps.core.records): a notification is its recipient's alone, admins included. A
watcher is its person's, and seen by whoever added it (who may cancel it too:
services.watcher_cancel); notifications.admin sees and cancels everyone's. The watchers of one
record are listed to anyone who may see that record (selectors.watcher_list).
"""

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

from apps.core import kinds
from apps.core.kinds import EntityLink
from apps.core.records import Access, RecordQuerySet
from apps.notifications.permissions import NotificationsPerm

USER = settings.AUTH_USER_MODEL


class Notification(models.Model):
    access = Access(
        NotificationsPerm,
        visibility="owner",
        owner="recipient",
        admins=False,
        change=NotificationsPerm.MARK,
        label=_("Notification"),
        find_with="listNotifications",
    )

    class Kind(models.TextChoices):
        MESSAGE = "message", _("message")  # sent by a person or an agent (createNotification)
        CHANGE = "change", _("change to a watched record")
        TASK = "task", _("task")  # from the Tasks area: a step waiting for you, a task finished
        SYSTEM = "system", _("system")

    class Priority(models.TextChoices):
        LOW = "low", _("low")
        NORMAL = "normal", _("normal")
        HIGH = "high", _("high")

    recipient = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.MESSAGE)
    priority = models.CharField(
        _("priority"), max_length=10, choices=Priority.choices, default=Priority.NORMAL
    )
    title = models.CharField(_("title"), max_length=200)
    body = models.TextField(_("text"), blank=True)
    actor = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+", verbose_name=_("from")
    )
    # The record it is about, if any (apps.core.kinds).
    content_type = models.ForeignKey(
        ContentType, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    object_id = models.PositiveBigIntegerField(null=True, blank=True)
    entity_title = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(_("sent"), default=timezone.now)
    seen_at = models.DateTimeField(_("seen"), null=True, blank=True)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    archived_at = models.DateTimeField(_("archived"), null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("notification")
        indexes = [
            models.Index(fields=["recipient", "-created_at"], name="notif_recipient_created"),
            models.Index(
                fields=["recipient"], condition=Q(read_at__isnull=True), name="notif_recipient_unread"
            ),
            models.Index(fields=["content_type", "object_id"], name="notif_entity"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(content_type__isnull=True, object_id__isnull=True)
                | Q(content_type__isnull=False, object_id__isnull=False),
                name="notif_entity_whole",
            )
        ]

    def __str__(self) -> str:
        return f"notification {self.pk} to {self.recipient_id}"

    @property
    def is_read(self) -> bool:
        return self.read_at is not None

    @cached_property
    def entity_available(self) -> bool:
        """Whether the recipient may still see the record it is about: once it is hidden from
        them (made private, in the trash, gone) its title is not theirs to read either."""
        if self.content_type_id is None or self.object_id is None:
            return False
        found = kinds.visible(
            actor=self.recipient, content_type_id=self.content_type_id, object_id=self.object_id
        )
        return found is not None


class Watcher(EntityLink):
    """`user` hears of changes to the linked record."""

    access = Access(
        NotificationsPerm,
        visibility="owner",
        owner="user",
        also="added_by",
        manage=NotificationsPerm.WATCH,
        label=_("Watcher"),
        find_with="listWatchers",
    )

    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="watching")
    added_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(_("since"), default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("watcher")
        constraints = [
            models.UniqueConstraint(fields=["user", "content_type", "object_id"], name="notif_watch_once")
        ]
        indexes = [models.Index(fields=["content_type", "object_id"], name="notif_watcher_entity")]

    def __str__(self) -> str:
        return f"{self.user_id} watches {self.content_type_id}:{self.object_id}"
