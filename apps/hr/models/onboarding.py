"""Onboarding: checklists made from templates; each item has an owner and a due date, and an
overdue item becomes a notification to its owner (apps.hr.tasks)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, RecordQuerySet, live_once, name_once
from apps.hr.models.employees import Employee
from apps.hr.permissions import HrPerm

USER = settings.AUTH_USER_MODEL


class OnboardingTemplate(Record):
    access = Access(
        HrPerm,
        visibility="workspace",
        manage=HrPerm.ONBOARDING,
        label=_("Onboarding template"),
        find_with="startOnboarding",
    )

    name = models.CharField(_("name"), max_length=120)
    description = models.CharField(_("description"), max_length=500, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("onboarding template")
        constraints = [name_once("hr_onboarding_template_name_once")]

    def __str__(self) -> str:
        return self.name


class Owner(models.TextChoices):
    EMPLOYEE = "employee", _("the new employee")
    MANAGER = "manager", _("their manager")
    HR = "hr", _("HR (who starts the onboarding)")


class OnboardingTemplateItem(models.Model):
    template = models.ForeignKey(OnboardingTemplate, on_delete=models.CASCADE, related_name="items")
    title = models.CharField(_("title"), max_length=200)
    owner = models.CharField(_("owner"), max_length=10, choices=Owner.choices, default=Owner.HR)
    # Due this many days after the employee's start date (negative: before it).
    due_days = models.SmallIntegerField(_("due (days after start)"), default=0)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["template", "position", "id"]
        verbose_name = _("onboarding template item")

    def __str__(self) -> str:
        return self.title


class OnboardingChecklist(Record):
    access = Access(
        HrPerm,
        visibility="workspace",
        manage=HrPerm.ONBOARDING,
        label=_("Onboarding checklist"),
        find_with="getOnboardingChecklist",
    )

    employee = models.ForeignKey(Employee, on_delete=models.CASCADE, related_name="onboardings")
    template = models.ForeignKey(
        OnboardingTemplate, on_delete=models.SET_NULL, null=True, blank=True, related_name="checklists"
    )
    name = models.CharField(_("name"), max_length=120)
    completed_at = models.DateTimeField(_("completed"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "id"]
        verbose_name = _("onboarding checklist")
        constraints = [live_once("hr_onboarding_one_open", "employee", completed_at__isnull=True)]

    def __str__(self) -> str:
        return self.name


class OnboardingItem(models.Model):
    access = Access(
        HrPerm,
        through="checklist",
        # Seen with its checklist; ticked by its owner, the new employee, or those who run
        # onboarding.
        owner=("owner", "checklist__employee__user"),
        change=HrPerm.VIEW,
        admin=HrPerm.ONBOARDING,
        label=_("Onboarding item"),
        find_with="getOnboardingChecklist",
    )

    checklist = models.ForeignKey(OnboardingChecklist, on_delete=models.CASCADE, related_name="items")
    title = models.CharField(_("title"), max_length=200)
    owner = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    due_date = models.DateField(_("due"))
    position = models.PositiveSmallIntegerField(default=0)
    done_at = models.DateTimeField(_("done"), null=True, blank=True)
    done_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # When its owner was told it is overdue (once).
    overdue_notified_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["checklist", "position", "id"]
        verbose_name = _("onboarding item")
        indexes = [models.Index(fields=["due_date", "done_at"], name="hr_onboarding_item_due")]

    def __str__(self) -> str:
        return self.title
