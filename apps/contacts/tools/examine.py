"""Everything about a contact in one answer."""

from pydantic import Field

from apps.catalogue.activity import EventsSection, Section, events_section
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import HistoryOut, Out
from apps.contacts import selectors
from apps.contacts.models import Contact, ContactEvent
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import ContactOut, ContactSummary, HealthOut, OwnershipOut, health_of
from apps.contacts.tools.common import ContactId, CreditCheckOut, LinkOut
from apps.contacts.tools.linked import get_contact_attachments
from apps.core.actors import can
from apps.core.errors import AreaNotAvailable


class AttachmentsSection(Section):
    documents: list[LinkOut]
    files: list[LinkOut]


class ExaminedContactOut(Out):
    contact: ContactOut
    health: HealthOut
    recent_history: list[HistoryOut] = Field(description="Last 10")
    ownership: list[OwnershipOut] = Field(description="Last 5")
    people: list[ContactSummary] = Field(description="An organisation's people (25)")
    attachments: AttachmentsSection
    upcoming_events: EventsSection
    last_credit_check: CreditCheckOut | None = Field(description="If you may run credit checks")


@tool("examineContact", permission=ContactsPerm.VIEW, title="Examine a contact in depth", read_only=True)
def examine_contact(ctx: ToolContext, *, contact_id: ContactId) -> ExaminedContactOut:
    """Get everything about a contact in one answer: fields, health, history, links, events."""
    actor = ctx.actor
    contact = selectors.contact_answer(actor=actor, contact_id=contact_id, trash=True)
    events = ContactEvent.objects.filter(contact=contact).select_related("actor")[:10]
    owners = contact.ownership_changes.select_related("previous_owner", "new_owner", "changed_by")[:5]
    people = (
        Contact.objects.restrict(actor)
        .filter(organisation=contact)
        .select_related("owner", "organisation")[:25]
        if contact.kind == Contact.Kind.ORGANISATION
        else []
    )
    try:
        attachments = get_contact_attachments(ctx, contact_id=contact.pk) if not contact.in_trash else None
        attached = AttachmentsSection(
            available=attachments is not None,
            reason="" if attachments is not None else "the contact is archived",
            documents=attachments.documents if attachments else [],
            files=attachments.files if attachments else [],
        )
    except AreaNotAvailable as error:
        attached = AttachmentsSection(available=False, reason=str(error.message), documents=[], files=[])
    upcoming = events_section(actor=actor, contacts=[contact])
    check = contact.credit_checks.first() if can(actor, ContactsPerm.CREDIT_CHECK) else None
    answer = ContactOut.of(contact, actor)
    return ExaminedContactOut(
        contact=answer,
        health=health_of(contact, conflicts=answer.open_conflict_count),
        recent_history=[HistoryOut.of_record(event) for event in events],
        ownership=[OwnershipOut.of_record(change) for change in owners],
        people=[ContactSummary.of(person) for person in people],
        attachments=attached,
        upcoming_events=upcoming,
        last_credit_check=CreditCheckOut.of_record(check) if check else None,
    )
