"""How the relationship stands: health (computed or judged) and credit checks."""

from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.contacts import services
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import HealthOut, health_of
from apps.contacts.tools.common import ContactId, CreditCheckOut


@tool(
    "getContactHealth",
    permission=ContactsPerm.VIEW,
    title="Get a contact's relationship health",
    read_only=True,
)
def get_contact_health(ctx: ToolContext, *, contact_id: ContactId) -> HealthOut:
    """Get how healthy a contact relationship is, 0-100, from activity or updateContactHealth."""
    return health_of(Contact.objects.fetch(ctx.actor, contact_id))


@tool(
    "updateContactHealth",
    permission=ContactsPerm.EDIT,
    title="Set a contact's relationship health",
    idempotent=True,
)
def update_contact_health(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    status: Annotated[
        Literal["healthy", "needs_attention", "at_risk", "cold"] | None, Field(description="Your judgement")
    ] = None,
    score: Annotated[int | None, Field(ge=0, le=100, description="0-100")] = None,
    note: Annotated[str | None, Field(max_length=500, description="Why, for the next person")] = None,
    reset: Annotated[bool, Field(description="Back to the health from activity")] = False,
) -> HealthOut:
    """Set your judgement of a relationship's health, which wins over activity; or reset it."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    contact = services.contact_set_health(
        actor=ctx.actor, contact=contact, status=status, score=score, note=note, reset=reset
    )
    return health_of(contact)


@tool(
    "getContactCreditCheck",
    permission=ContactsPerm.CREDIT_CHECK,
    title="Run a credit check on a contact",
    markers=Marker.GATED,
    open_world=True,
)
def get_contact_credit_check(
    ctx: ToolContext,
    *,
    contact_id: ContactId,
    purpose: Annotated[
        Literal["credit_application", "account_opening", "contract", "debt_collection"],
        Field(description="The lawful purpose a bureau needs"),
    ],
) -> CreditCheckOut:
    """Get a paid credit report on a contact from the workspace's credit bureau: score, band, summary."""
    contact = Contact.objects.fetch(ctx.actor, contact_id)
    check = services.credit_check_run(actor=ctx.actor, contact=contact, purpose=purpose)
    return CreditCheckOut.of_record(check)
