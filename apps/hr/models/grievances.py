"""Grievances: confidential cases (special-category data, GDPR Art. 9). Anyone who may see HR
files one; only hr.grievances sees and handles them, and every read is recorded
(`GrievanceRead`: who, when, through which door), as is every change (`GrievanceEvent`)."""

import secrets
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


def _reference() -> str:
    return f"GR-{secrets.token_hex(4).upper()}"


class Grievance(Record):
    access = Access(
        HrPerm,
        visibility="workspace",
        view=HrPerm.GRIEVANCES,
        manage=HrPerm.GRIEVANCES,
        admin=HrPerm.GRIEVANCES,
        label=_("Grievance"),
        find_with="getGrievances",
        # A grievance about someone who handles grievances is never theirs to read.
        hidden_from="about_people",
    )

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        INVESTIGATING = "investigating", _("investigating")
        RESOLVED = "resolved", _("resolved")
        CLOSED = "closed", _("closed")

    reference = models.CharField(_("reference"), max_length=20, unique=True, default=_reference)
    filed_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    about = models.CharField(_("about"), max_length=200, blank=True)
    # The people of the workspace `about` names (by e-mail or full name).
    about_people: "models.ManyToManyField[Any, Any]" = models.ManyToManyField(
        USER, blank=True, related_name="+", verbose_name=_("about people")
    )
    category = models.CharField(_("category"), max_length=60)
    description = models.TextField(_("description"))
    status = models.CharField(_("status"), max_length=20, choices=Status.choices, default=Status.OPEN)
    handler = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    outcome = models.TextField(_("outcome"), blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("grievance")

    def __str__(self) -> str:
        return self.reference


class GrievanceEvent(models.Model):
    grievance = models.ForeignKey(Grievance, on_delete=models.CASCADE, related_name="events")
    at = models.DateTimeField(default=timezone.now)
    by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    change = models.CharField(max_length=200)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("grievance event")

    def __str__(self) -> str:
        return f"{self.change} on {self.grievance_id}"


class GrievanceRead(models.Model):
    """One read of a grievance by a person: the audit trail HR answers to."""

    grievance = models.ForeignKey(Grievance, on_delete=models.CASCADE, related_name="reads")
    reader = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    at = models.DateTimeField(default=timezone.now)
    door = models.CharField(max_length=60)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("grievance read")

    def __str__(self) -> str:
        return f"{self.grievance_id} read by {self.reader_id}"
