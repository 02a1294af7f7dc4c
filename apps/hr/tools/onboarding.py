"""Onboarding in the catalogue (apps.hr.services.onboarding)."""

from typing import Annotated

from django.utils import timezone
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import RefOut, id_field
from apps.core.errors import invalid
from apps.hr.models import OnboardingChecklist
from apps.hr.permissions import HrPerm
from apps.hr.selectors import employees as people
from apps.hr.services import onboarding as services
from apps.hr.shapes import ChecklistOut, OnboardingItemOut
from apps.hr.tools.common import EmployeeId


def checklist_out(checklist: OnboardingChecklist) -> ChecklistOut:
    today = timezone.localdate()
    items = [OnboardingItemOut.of(item, today) for item in checklist.items.select_related("owner")]
    employee = checklist.employee
    return ChecklistOut(
        id=checklist.pk,
        employee=RefOut(id=employee.pk, name=employee.full_name),
        name=checklist.name,
        items=items,
        done=sum(item.done for item in items),
        total=len(items),
        completed_at=checklist.completed_at,
    )


@tool("startOnboarding", permission=HrPerm.ONBOARDING, title="Start onboarding")
def start_onboarding(
    ctx: ToolContext,
    *,
    employee_id: EmployeeId,
    template_id: Annotated[int | None, Field(ge=1, description="Default: the standard template")] = None,
) -> ChecklistOut:
    """Make a new hire's onboarding checklist from a template: items with owners and due dates."""
    employee = people.employee_get(actor=ctx.actor, employee_id=employee_id)
    checklist = services.checklist_start(
        actor=ctx.actor, employee=employee, template=services.template_of(template_id)
    )
    return checklist_out(checklist)


@tool("getOnboardingChecklist", permission=HrPerm.VIEW, title="Get an onboarding checklist", read_only=True)
def get_onboarding_checklist(ctx: ToolContext, *, employee_id: EmployeeId) -> ChecklistOut:
    """An employee's latest onboarding checklist: items, owners, due dates, what is done."""
    employee = people.employee_get(actor=ctx.actor, employee_id=employee_id)
    checklist = (
        OnboardingChecklist.objects.restrict(ctx.actor)
        .filter(employee=employee)
        .order_by("-created_at", "-id")
        .first()
    )
    if checklist is None:
        raise invalid(
            "employeeId",
            _("{full_name} has no onboarding checklist; startOnboarding makes one"),
            full_name=employee.full_name,
        )
    return checklist_out(checklist)


@tool("toggleOnboardingItem", permission=HrPerm.VIEW, title="Tick an onboarding item", idempotent=True)
def toggle_onboarding_item(
    ctx: ToolContext,
    *,
    item_id: Annotated[int, id_field("getOnboardingChecklist")],
    done: Annotated[bool, Field(description="false: open it again")] = True,
) -> OnboardingItemOut:
    """Mark an onboarding checklist item done (or not done again)."""
    item = services.items_visible(actor=ctx.actor).filter(pk=item_id).first()
    if item is None:
        raise invalid(
            "itemId", _("no onboarding item {item_id}; getOnboardingChecklist lists them"), item_id=item_id
        )
    item = services.item_toggle(actor=ctx.actor, item=item, done=done)
    return OnboardingItemOut.of(item, timezone.localdate())
