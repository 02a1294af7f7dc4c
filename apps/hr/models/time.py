"""Time: clock-in and clock-out pairs (instants in UTC, with the zone they were made in), their
breaks, and every correction made to them, with its reason."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, live_once
from apps.hr.models.employees import Employee
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


class TimeEntry(Record):
    access = Access(
        HrPerm,
        # One's own entries; everyone's for those who manage time.
        visibility="owner",
        owner="employee__user",
        sees_all=(HrPerm.TIME_MANAGE,),
        view=HrPerm.TIME,
        change=HrPerm.TIME,
        delete=HrPerm.TIME_MANAGE,
        label=_("Time entry"),
        find_with="getTimeEntries",
    )

    class Source(models.TextChoices):
        CLOCK = "clock", _("clocked")
        MANUAL = "manual", _("entered later")

    employee = models.ForeignKey(Employee, on_delete=models.CASCADE, related_name="time_entries")
    clock_in = models.DateTimeField(_("in"))
    clock_out = models.DateTimeField(_("out"), null=True, blank=True)
    break_minutes = models.PositiveIntegerField(_("breaks (minutes)"), default=0)
    # The employee's zone when it was made: days and weeks are counted there.
    time_zone = models.CharField(_("time zone"), max_length=64)
    source = models.CharField(_("source"), max_length=10, choices=Source.choices, default=Source.CLOCK)
    note = models.CharField(_("note"), max_length=300, blank=True)

    class Meta:
        ordering = ["-clock_in", "id"]
        verbose_name = _("time entry")
        verbose_name_plural = _("time entries")
        constraints = [
            models.CheckConstraint(
                condition=Q(clock_out__isnull=True) | Q(clock_out__gt=F("clock_in")),
                name="hr_time_out_after_in",
            ),
            live_once("hr_time_one_open_entry", "employee", clock_out__isnull=True),
        ]
        indexes = [models.Index(fields=["employee", "clock_in"], name="hr_time_employee_in")]

    def __str__(self) -> str:
        return f"time {self.pk} of {self.employee_id}"

    @property
    def worked_minutes(self) -> int | None:
        if self.clock_out is None:
            return None
        return max(0, int((self.clock_out - self.clock_in).total_seconds() // 60) - self.break_minutes)


class TimeEntryEdit(models.Model):
    """The audit of a time entry: who set which times, when, and why."""

    entry = models.ForeignKey(TimeEntry, on_delete=models.CASCADE, related_name="edits")
    changed_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    changed_at = models.DateTimeField(default=timezone.now)
    field = models.CharField(_("field"), max_length=20)
    before = models.CharField(_("before"), max_length=40, blank=True)
    after = models.CharField(_("after"), max_length=40)
    reason = models.CharField(_("reason"), max_length=300)

    class Meta:
        ordering = ["changed_at", "id"]
        verbose_name = _("time entry edit")

    def __str__(self) -> str:
        return f"edit of {self.entry_id}"
