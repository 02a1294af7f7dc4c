"""Versioned policies: getPolicies, getPolicyAcknowledgments."""

from datetime import datetime
from typing import Annotated

from django.utils.translation import gettext as _
from pydantic import Field

from apps.accounts.models import User
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, PersonRef, id_field, paginate
from apps.core.actors import actor_id
from apps.core.errors import invalid
from apps.hr.models import Employee, Policy, PolicyAcknowledgment
from apps.hr.permissions import HrPerm

PolicyId = Annotated[int, id_field("getPolicies")]


class PolicyOut(Out):
    id: int
    title: str
    version: int
    published_at: datetime
    summary: str = Field(description="What changed in this version")
    acknowledged_by_you: bool
    text: str | None = Field(description="With withText")


@tool("getPolicies", permission=HrPerm.VIEW, title="Get HR policies", read_only=True)
def get_policies(
    ctx: ToolContext,
    *,
    policy_id: Annotated[int | None, id_field("getPolicies", description="Only this one")] = None,
    with_text: Annotated[bool, Field(description="Add the current version's text")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[PolicyOut]:
    """List HR policies at their current version, and whether you acknowledged it."""
    rows = Policy.objects.restrict(ctx.actor).filter(versions__isnull=False).distinct()
    if policy_id:
        rows = rows.filter(pk=Policy.objects.fetch(ctx.actor, policy_id).pk)
    me = actor_id(ctx.actor)

    def item(policy: Policy) -> PolicyOut:
        version = policy.current
        assert version is not None  # only policies with a version are listed
        return PolicyOut(
            id=policy.pk,
            title=policy.title,
            version=version.number,
            published_at=version.published_at,
            summary=version.summary,
            acknowledged_by_you=me is not None and version.acknowledgments.filter(user_id=me).exists(),
            text=version.text if with_text else None,
        )

    return paginate(rows.order_by("title", "id"), limit=limit, offset=offset, item=item)


class AcknowledgedOut(Out):
    person: PersonRef
    at: datetime


class AcknowledgmentsOut(Out):
    policy_id: int
    title: str
    version: int
    acknowledged: list[AcknowledgedOut]
    missing: list[PersonRef] = Field(description="Current employees with an account who have not")


@tool(
    "getPolicyAcknowledgments", permission=HrPerm.POLICIES, title="Get policy acknowledgments", read_only=True
)
def get_policy_acknowledgments(
    ctx: ToolContext,
    *,
    policy_id: PolicyId,
    version: Annotated[int | None, Field(ge=1, le=100_000, description="Default: the current")] = None,
) -> AcknowledgmentsOut:
    """Who acknowledged a policy version, and which employees still have to."""
    policy = Policy.objects.fetch(ctx.actor, policy_id)
    found = policy.versions.filter(number=version).first() if version else policy.current
    if found is None:
        numbers = list(policy.versions.values_list("number", flat=True))
        raise invalid(
            "version",
            _("policy {policy} has versions {numbers}"),
            policy=policy.pk,
            numbers=numbers or "none",
        )
    acks = (
        PolicyAcknowledgment.objects.filter(version=found).select_related("user").order_by("acknowledged_at")
    )
    done = {ack.user_id for ack in acks}
    from django.db.models import Q
    from django.utils import timezone

    current = (
        Employee.objects.restrict(ctx.actor)
        .filter(user__is_active=True)
        .filter(Q(end_date__isnull=True) | Q(end_date__gte=timezone.localdate()))
    )
    missing = User.objects.filter(pk__in=current.values("user_id")).exclude(pk__in=done).order_by("email")
    return AcknowledgmentsOut(
        policy_id=policy.pk,
        title=policy.title,
        version=found.number,
        acknowledged=[AcknowledgedOut(person=PersonRef.of(a.user), at=a.acknowledged_at) for a in acks[:500]],
        missing=[PersonRef.of(user) for user in missing[:500]],
    )
