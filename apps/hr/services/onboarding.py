"""Writes about onboarding: a checklist made from a template for a new employee, its items
ticked off by their owners, and overdue items told to their owners (once)."""

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.accounts.models import person
from apps.core.actors import Actor, require
from apps.core.errors import invalid
from apps.core.records import RecordQuerySet
from apps.hr.errors import NotYourOnboardingItem
from apps.hr.models import (
    Employee,
    OnboardingChecklist,
    OnboardingItem,
    OnboardingTemplate,
    OnboardingTemplateItem,
)
from apps.hr.models.onboarding import Owner
from apps.hr.permissions import HrPerm

logger = logging.getLogger(__name__)

# The template a workspace starts with: (title, owner, days after the start date).
STANDARD = (
    ("Send the contract and collect the signed copy", Owner.HR, -10),
    ("Prepare laptop, accounts and access", Owner.HR, -3),
    ("Plan the first week and a buddy", Owner.MANAGER, -2),
    ("Welcome meeting with the team", Owner.MANAGER, 0),
    ("Read the handbook and HR policies", Owner.EMPLOYEE, 5),
    ("Complete the mandatory training", Owner.EMPLOYEE, 14),
    ("Thirty-day check-in", Owner.MANAGER, 30),
)


def template_standard() -> OnboardingTemplate:
    template = OnboardingTemplate.objects.live().order_by("id").first()
    if template is not None:
        return template
    template = OnboardingTemplate.objects.create(name="Standard onboarding", description="The first month")
    OnboardingTemplateItem.objects.bulk_create(
        OnboardingTemplateItem(template=template, title=title, owner=owner, due_days=days, position=index)
        for index, (title, owner, days) in enumerate(STANDARD)
    )
    return template


def template_of(template_id: int | None) -> OnboardingTemplate:
    if not template_id:
        return template_standard()
    found = OnboardingTemplate.objects.live().filter(pk=template_id).first()
    if found is None:
        names = ", ".join(f"{t.pk}: {t.name}" for t in OnboardingTemplate.objects.live()[:20]) or "none yet"
        raise invalid(
            "templateId",
            _("no onboarding template {template_id}; the templates are {names}"),
            template_id=template_id,
            names=names,
        )
    return found


@transaction.atomic
def checklist_start(*, actor: Actor, employee: Employee, template: OnboardingTemplate) -> OnboardingChecklist:
    require(actor, HrPerm.ONBOARDING)
    employee = (
        Employee.objects.select_for_update(of=("self",)).select_related("manager__user").get(pk=employee.pk)
    )
    running = OnboardingChecklist.objects.live().filter(employee=employee, completed_at__isnull=True).first()
    if running is not None:
        raise invalid(
            "employeeId",
            _("{full_name} is already onboarding (checklist {running})"),
            full_name=employee.full_name,
            running=running.pk,
        )
    if employee.end_date and employee.end_date < timezone.localdate():
        raise invalid(
            "employeeId",
            _("{full_name} left on {end_date}"),
            full_name=employee.full_name,
            end_date=employee.end_date.isoformat(),
        )
    items = list(template.items.all())
    if not items:
        raise invalid("templateId", _("template {name!r} has no items"), name=template.name)
    hr = person(actor)
    owners = {
        Owner.HR: hr,
        Owner.MANAGER: employee.manager.user if employee.manager and employee.manager.user else hr,
        Owner.EMPLOYEE: employee.user or hr,
    }
    checklist = OnboardingChecklist.objects.create(
        employee=employee, template=template, name=template.name, created_by=hr
    )
    OnboardingItem.objects.bulk_create(
        OnboardingItem(
            checklist=checklist,
            title=item.title,
            owner=owners[Owner(item.owner)],
            due_date=employee.start_date + timedelta(days=item.due_days),
            position=item.position,
        )
        for item in items
    )
    logger.info("onboarding checklist %s started for employee %s", checklist.pk, employee.pk)
    return checklist


@transaction.atomic
def item_toggle(*, actor: Actor, item: OnboardingItem, done: bool) -> OnboardingItem:
    require(actor, HrPerm.VIEW)
    item = OnboardingItem.objects.select_for_update().select_related("checklist__employee").get(pk=item.pk)
    if not OnboardingItem.access.allows(actor, item, "change"):
        raise NotYourOnboardingItem()
    if done and item.done_at is None:
        item.done_at, item.done_by = timezone.now(), person(actor)
    elif not done:
        item.done_at, item.done_by = None, None
    item.save(update_fields=["done_at", "done_by"])
    checklist = item.checklist
    finished = not checklist.items.filter(done_at__isnull=True).exists()
    checklist.completed_at = timezone.now() if finished else None
    checklist.save(update_fields=["completed_at", "updated_at"])
    return item


def overdue_notify() -> int:
    """Tells each owner of an overdue, open item about it, once. Returns how many were told."""
    from apps.notifications.api import notify

    today = timezone.localdate()
    told = 0
    rows = OnboardingItem.objects.filter(
        due_date__lt=today,
        done_at__isnull=True,
        overdue_notified_at__isnull=True,
        checklist__deleted_at__isnull=True,
        checklist__completed_at__isnull=True,
        owner__isnull=False,
    ).select_related("owner", "checklist__employee")
    for item in rows[:1000]:
        with transaction.atomic():
            notify(
                recipient=item.owner,
                title=f"Onboarding item overdue: {item.title}"[:200],
                body=f"For {item.checklist.employee.full_name}, due {item.due_date.isoformat()}",
                priority="high",
                kind="system",
            )
            item.overdue_notified_at = timezone.now()
            item.save(update_fields=["overdue_notified_at"])
            told += 1
    if told:
        logger.info("%s overdue onboarding items notified", told)
    return told


def items_visible(*, actor: Actor) -> RecordQuerySet[OnboardingItem]:
    return OnboardingItem.objects.restrict(actor).select_related("owner", "checklist__employee")
