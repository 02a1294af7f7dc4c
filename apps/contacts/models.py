"""Contacts: the people and organisations a workspace deals with. Workspace schema.

A contact is a record of the area kit (apps.core.records): it has an owner and a visibility
(`workspace`: everyone who may see contacts; `private`: its owner and the people it is shared
with, `ContactShare`), and who may see or change it is `Contact.access`. It is archived first
(`deleted_at`; restoreContact brings it back) and erased later (data-rights requests, or the
owner's clean-up); every related row below goes with it. Business fields a workspace adds for
itself live in `data` (SPEC 10.3), the usual CRM fields are columns.
"""

from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.contacts.errors import ContactArchived
from apps.contacts.permissions import ContactsPerm
from apps.core import history
from apps.core.records import Access, OwnedRecord
from apps.core.sharing import ShareBase

USER = settings.AUTH_USER_MODEL


class Contact(OwnedRecord):
    access = Access(
        ContactsPerm,
        shares=True,
        label=_("Contact"),
        find_with="searchContacts",
        restore_with="restoreContact",
        trash_state=_("archived"),
        trash_error=ContactArchived,
    )

    class Kind(models.TextChoices):
        PERSON = "person", _("person")
        ORGANISATION = "organisation", _("organisation")

    class Stage(models.TextChoices):
        LEAD = "lead", _("lead")
        PROSPECT = "prospect", _("prospect")
        CUSTOMER = "customer", _("customer")
        PARTNER = "partner", _("partner")
        SUPPLIER = "supplier", _("supplier")
        FORMER = "former", _("former")

    class Health(models.TextChoices):
        HEALTHY = "healthy", _("healthy")
        NEEDS_ATTENTION = "needs_attention", _("needs attention")
        AT_RISK = "at_risk", _("at risk")
        COLD = "cold", _("cold")

    kind = models.CharField(_("kind"), max_length=20, choices=Kind.choices, default=Kind.PERSON)
    first_name = models.CharField(_("first name"), max_length=100, blank=True)
    last_name = models.CharField(_("last name"), max_length=100, blank=True)
    # The name of an organisation (kind "organisation").
    organisation_name = models.CharField(_("organisation name"), max_length=200, blank=True)
    email = models.EmailField(_("email"), max_length=254, blank=True)
    # E.164 ("+442071838750"), normalised by the services.
    phone = models.CharField(_("phone"), max_length=32, blank=True)
    mobile = models.CharField(_("mobile"), max_length=32, blank=True)
    job_title = models.CharField(_("job title"), max_length=150, blank=True)
    # Employer as text, when it is not a contact of its own (then: `organisation`).
    company = models.CharField(_("company"), max_length=200, blank=True)
    organisation = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="people",
        limit_choices_to={"kind": "organisation"},
        verbose_name=_("organisation"),
    )
    website = models.URLField(_("website"), max_length=200, blank=True)
    street = models.CharField(_("street"), max_length=200, blank=True)
    city = models.CharField(_("city"), max_length=100, blank=True)
    region = models.CharField(_("region"), max_length=100, blank=True)
    postal_code = models.CharField(_("postal code"), max_length=20, blank=True)
    # ISO 3166-1 alpha-2.
    country = models.CharField(_("country"), max_length=2, blank=True)
    birthday = models.DateField(_("birthday"), null=True, blank=True)
    notes = models.TextField(_("notes"), blank=True)
    tags = ArrayField(models.CharField(max_length=50), default=list, blank=True, verbose_name=_("tags"))
    lifecycle_stage = models.CharField(_("stage"), max_length=20, choices=Stage.choices, default=Stage.LEAD)
    source = models.CharField(_("source"), max_length=100, blank=True)
    last_contacted_at = models.DateTimeField(_("last contacted"), null=True, blank=True)
    # A person's own judgement of the relationship; empty: computed from activity.
    health_status = models.CharField(_("health"), max_length=20, choices=Health.choices, blank=True)
    health_score = models.PositiveSmallIntegerField(_("health score"), null=True, blank=True)
    health_note = models.CharField(_("health note"), max_length=500, blank=True)
    health_set_by = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    health_set_at = models.DateTimeField(null=True, blank=True)
    # Business fields of the workspace's own (SPEC 10.3): a flat JSON object.
    data = models.JSONField(_("data"), default=dict, blank=True)
    # Archived (`deleted_at`, the kit's trash), with who did it: OwnedRecord's fields.
    merged_into = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="merged_from"
    )

    class Meta:
        ordering = ["last_name", "first_name", "organisation_name", "id"]
        verbose_name = _("contact")
        indexes = [
            models.Index(Lower("email"), name="contacts_email_lower"),
            models.Index(fields=["phone"], name="contacts_phone"),
            models.Index(fields=["owner", "deleted_at"], name="contacts_owner"),
            models.Index(fields=["deleted_at"], name="contacts_deleted"),
            models.Index(Lower("last_name"), Lower("first_name"), name="contacts_name"),
            GinIndex(fields=["tags"], name="contacts_tags"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(health_score__isnull=True) | Q(health_score__lte=100),
                name="contacts_health_score",
            ),
            models.CheckConstraint(
                condition=~Q(kind="organisation") | ~Q(organisation_name=""),
                name="contacts_organisation_named",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        if self.kind == self.Kind.ORGANISATION:
            return self.organisation_name
        name = " ".join(part for part in (self.first_name, self.last_name) if part)
        return name or self.email or self.phone or f"#{self.pk}"

    @property
    def addresses(self) -> list[str]:
        return [self.email] if self.email else []


class ContactEvent(history.Event):
    """The contact's history, newest first: what happened, who did it (and through which door),
    which fields changed."""

    class Kind(models.TextChoices):
        CREATED = "created", _("created")
        UPDATED = "updated", _("updated")
        DELETED = "deleted", _("archived")
        RESTORED = "restored", _("restored")
        MERGED = "merged", _("merged others into it")
        MERGED_INTO = "merged_into", _("merged into another")
        SHARED = "shared", _("sharing changed")
        OWNER_CHANGED = "owner_changed", _("owner changed")
        HEALTH_UPDATED = "health_updated", _("health updated")
        LINKED = "linked", _("item linked")
        UNLINKED = "unlinked", _("item unlinked")
        KEY_CONTACTS_UPDATED = "key_contacts_updated", _("key contacts updated")
        CONFLICT_RESOLVED = "conflict_resolved", _("possible duplicate resolved")
        CREDIT_CHECKED = "credit_checked", _("credit checked")

    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=30, choices=Kind.choices)

    class Meta(history.Event.Meta):
        indexes = [models.Index(fields=["contact", "-at"], name="contacts_event_contact_at")]

    def __str__(self) -> str:
        return f"{self.kind} of {self.contact_id}"


class OwnershipChange(models.Model):
    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="ownership_changes")
    previous_owner = models.ForeignKey(
        USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    new_owner = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    changed_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    changed_at = models.DateTimeField(default=timezone.now)
    reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-changed_at", "-id"]

    def __str__(self) -> str:
        return f"owner of {self.contact_id}: {self.previous_owner_id} -> {self.new_owner_id}"


class ContactShare(ShareBase):
    item = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="shares")


class ContactLink(models.Model):
    """A document or file of another area linked to the contact: the contact kind keeps its own
    links (apps.core.kinds.attachments)."""

    class Kind(models.TextChoices):
        DOCUMENT = "document", _("document")
        FILE = "file", _("file")

    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="links")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    target_id = models.BigIntegerField()
    # The item's title when it was linked, shown if the item can no longer be read.
    title = models.CharField(max_length=300, blank=True)
    linked_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    linked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-linked_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["contact", "kind", "target_id"], name="contacts_link_once")
        ]
        indexes = [models.Index(fields=["kind", "target_id"], name="contacts_link_target")]

    def __str__(self) -> str:
        return f"{self.kind} {self.target_id} of {self.contact_id}"


class KeyContact(models.Model):
    """The people who matter most at an organisation, in order, with their role there."""

    organisation = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="key_contacts")
    person = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="key_for")
    role = models.CharField(max_length=100, blank=True)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organisation", "person"], name="contacts_key_once"),
            models.CheckConstraint(
                condition=~Q(organisation=models.F("person")), name="contacts_key_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.person_id} key at {self.organisation_id}"


class ContactConflict(models.Model):
    """A possible duplicate found when a contact was created or changed, waiting for a person."""

    class Reason(models.TextChoices):
        SAME_EMAIL = "same_email", _("same e-mail address")
        SAME_PHONE = "same_phone", _("same phone number")
        SAME_NAME = "same_name", _("same name and organisation")

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        RESOLVED = "resolved", _("resolved")

    class Resolution(models.TextChoices):
        KEEP_BOTH = "keep_both", _("not duplicates: keep both")
        DISMISSED = "dismissed", _("dismissed")
        MERGED = "merged", _("merged")

    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="conflicts")
    other = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    resolution = models.CharField(max_length=20, choices=Resolution.choices, blank=True)
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    resolved_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["contact", "other"], name="contacts_conflict_once"),
            models.CheckConstraint(condition=~Q(contact=models.F("other")), name="contacts_conflict_two"),
        ]

    def __str__(self) -> str:
        return f"{self.contact_id} ~ {self.other_id} ({self.reason}, {self.status})"

    def involves(self, contact_id: Any) -> bool:
        return contact_id in (self.contact_id, self.other_id)


class CreditCheck(models.Model):
    """The answer of the credit bureau (apps.contacts.credit), kept as the bureau gave it."""

    contact = models.ForeignKey(Contact, on_delete=models.CASCADE, related_name="credit_checks")
    provider = models.CharField(max_length=50)
    reference = models.CharField(max_length=100)
    purpose = models.CharField(max_length=40)
    score = models.IntegerField(null=True, blank=True)
    band = models.CharField(max_length=20, blank=True)
    summary = models.CharField(max_length=500, blank=True)
    requested_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    checked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-checked_at", "-id"]

    def __str__(self) -> str:
        return f"credit check {self.reference} of {self.contact_id}"
