"""Training records: a course an employee completed, and when its certificate expires (none: it
does not). Status is computed from the dates (valid, expiring within 30 days, expired)."""

from datetime import date, timedelta

from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record
from apps.hr.permissions import HrPerm

EXPIRING_DAYS = 30


class TrainingRecord(Record):
    access = Access(
        HrPerm,
        visibility="workspace",
        view=HrPerm.TRAINING,
        manage=HrPerm.TRAINING,
        label=_("Training record"),
        find_with="getTrainingRecords",
    )

    employee = models.ForeignKey("hr.Employee", on_delete=models.CASCADE, related_name="training")
    course = models.CharField(_("course"), max_length=200)
    provider = models.CharField(_("provider"), max_length=200, blank=True)
    completed_on = models.DateField(_("completed"))
    expires_on = models.DateField(_("expires"), null=True, blank=True)
    notes = models.CharField(_("notes"), max_length=1000, blank=True)

    class Meta:
        ordering = ["employee", "-completed_on", "id"]
        verbose_name = _("training record")
        constraints = [
            models.CheckConstraint(
                condition=Q(expires_on__isnull=True) | Q(expires_on__gt=F("completed_on")),
                name="hr_training_expires_after_completion",
            )
        ]

    def __str__(self) -> str:
        return self.course

    def status_on(self, today: date) -> str:
        if self.expires_on is None:
            return "valid"
        if self.expires_on <= today:
            return "expired"
        return "expiring" if self.expires_on <= today + timedelta(days=EXPIRING_DAYS) else "valid"
