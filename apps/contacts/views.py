"""The Contacts settings pages: the contacts people and agents keep, for the people of the
workspace to read. Read-only: contacts are written through the tools (apps.contacts.tools).

Who sees what is the tools' rule (`Contact.objects.restrict`): a contact the reader may not see
is "not found" here too, the same 404 as an id that does not exist.
"""

from typing import Any

from django.http import Http404, HttpResponse
from django.shortcuts import render

from apps.accounts.requests import AuthenticatedHttpRequest
from apps.catalogue.activity import carried
from apps.contacts import errors, related, selectors
from apps.contacts.models import Contact, ContactEvent
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import health_of
from apps.core.pages import READ, chosen, page, paged

# What the search box takes: the limit of searchContacts' query.
QUERY_MAX = 200
# The largest id a contact can have (a PostgreSQL bigint): a larger one in a URL is not found.
ID_MAX = 2**63 - 1
SHOWS = ("current", "archived")


@page(ContactsPerm.VIEW, methods=READ)
def contact_list(request: AuthenticatedHttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    if len(query) > QUERY_MAX:
        raise errors.SearchTooLong(most=QUERY_MAX)
    if "\x00" in query:
        raise errors.SearchWithNul()
    show = chosen(request, "show", SHOWS, "current")
    kind = chosen(request, "kind", Contact.Kind.values)
    stage = chosen(request, "stage", Contact.Stage.values)
    rows = selectors.contact_list(
        actor=request.user, query=query, kind=kind, stage=stage, archived=show == "archived"
    )
    return render(
        request,
        "contacts/list.html",
        {
            "nav": "contacts",
            "query": query.strip(),
            "show": show,
            "kind": kind,
            "kinds": Contact.Kind.choices,
            "stage": stage,
            "stages": Contact.Stage.choices,
            "query_max": QUERY_MAX,
            **paged(request, rows),
        },
    )


@page(ContactsPerm.VIEW, methods=READ)
def contact_detail(request: AuthenticatedHttpRequest, contact_id: int) -> HttpResponse:
    if contact_id > ID_MAX:
        raise Http404
    # As getContact finds it, archived ones too: their history stays readable.
    contact = selectors.contact_answer(actor=request.user, contact_id=contact_id, trash=True)
    shares = list(contact.shares.select_related("user", "shared_by").order_by("created_at", "id"))
    relations = selectors.contact_relations(actor=request.user, contact=contact)
    attachments = carried(actor=request.user, record=contact)
    history = paged(request, selectors.contact_history(contact=contact))
    return render(
        request,
        "contacts/detail.html",
        {
            "nav": "contacts",
            "contact": contact,
            # Business fields (SPEC 10.3) as pairs: a key named like a dict method stays a key.
            "business_fields": sorted((contact.data or {}).items()),
            "health": health_of(contact, conflicts=len(relations["conflicts"])),
            "shares": shares,
            "level": Contact.access.level(request.user, contact, shares),
            **relations,
            "linking": related.linking_records(actor=request.user, contact=contact),
            "documents": attachments.documents,
            "files": attachments.files,
            "ownership": contact.ownership_changes.select_related(
                "previous_owner", "new_owner", "changed_by"
            )[:50],
            **history,
            "events": [(event, _changes(event)) for event in history["page"]],
        },
    )


def _changes(event: ContactEvent) -> list[tuple[str, Any, Any]]:
    """An event's changes as rows: (field, before, after) for a field changed, (fact, value, None)
    for the other facts an event keeps."""
    rows: list[tuple[str, Any, Any]] = []
    for name, value in sorted((event.changes or {}).items()):
        if event.kind == ContactEvent.Kind.UPDATED and isinstance(value, list) and len(value) == 2:
            rows.append((name.replace("_", " "), value[0], value[1]))
        else:
            rows.append((name.replace("_", " "), value, None))
    return rows
