"""Finding contacts: list, free-text search, conditions on any field; and the country codes they store."""

from typing import Annotated, Literal

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import In, Limit, Offset, Out, Page, paginate
from apps.contacts import selectors
from apps.contacts.models import Contact
from apps.contacts.permissions import ContactsPerm
from apps.contacts.shapes import ContactSummary
from apps.contacts.tools.common import Kind, Stage
from apps.core import search
from apps.core.errors import invalid

Sort = Literal["name", "-name", "created", "-created", "updated", "-updated"]
SortBy = Annotated[Sort, Field(description="A leading - reverses")]
SORTS = {
    "name": ("last_name", "first_name", "organisation_name", "id"),
    "-name": ("-last_name", "-first_name", "-organisation_name", "-id"),
    "created": ("created_at", "id"),
    "-created": ("-created_at", "-id"),
    "updated": ("updated_at", "id"),
    "-updated": ("-updated_at", "-id"),
}


@tool("listContacts", permission=ContactsPerm.VIEW, title="List contacts", read_only=True)
def list_contacts(
    ctx: ToolContext,
    *,
    kind: Annotated[Kind | None, Field(description="Only this kind")] = None,
    lifecycle_stage: Annotated[Stage | None, Field(description="Only at this stage")] = None,
    tag: Annotated[str | None, Field(max_length=50, description="Only with this tag")] = None,
    owner_email: Annotated[
        str | None, Field(max_length=254, description="Only those this person owns")
    ] = None,
    organisation_id: Annotated[int | None, Field(ge=1, description="Only this organisation's people")] = None,
    archived: Annotated[
        Literal["exclude", "include", "only"],
        Field(description="Leave archived ones out, add them, or only them"),
    ] = "exclude",
    sort: SortBy = "name",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ContactSummary]:
    """List contacts with simple filters. Free text: searchContacts; conditions: queryContacts."""
    rows = Contact.objects.restrict(ctx.actor, trash=archived).select_related("owner", "organisation")
    if kind:
        rows = rows.filter(kind=kind)
    if lifecycle_stage:
        rows = rows.filter(lifecycle_stage=lifecycle_stage)
    rows = search.narrowed(rows, tag=tag, owner_email=owner_email)
    if organisation_id:
        rows = rows.filter(organisation_id=organisation_id)
    return paginate(rows.order_by(*SORTS[sort]), limit=limit, offset=offset, item=ContactSummary.of)


@tool("searchContacts", permission=ContactsPerm.VIEW, title="Search contacts", read_only=True)
def search_contacts(
    ctx: ToolContext,
    *,
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="Words in names, e-mail, phone, company, city or tags",
        ),
    ],
    include_archived: Annotated[bool, Field(description="Archived ones too")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ContactSummary]:
    """Find contacts by free text, best matches first. Filters: listContacts; conditions: queryContacts."""
    if not query.strip():
        raise invalid("query", _("give at least one word to search for"))
    rows = selectors.contact_search(actor=ctx.actor, query=query, include_deleted=include_archived)
    return paginate(
        rows.select_related("owner", "organisation"), limit=limit, offset=offset, item=ContactSummary.of
    )


class ContactFilter(In):
    field: str = Field(
        max_length=80,
        description="A field as getContact names it (city, not address), health, archived, or data.<key>",
    )
    op: Literal[
        "eq", "ne", "contains", "startsWith", "in", "gt", "gte", "lt", "lte", "isEmpty", "isNotEmpty"
    ] = Field(description="Text compares without case")
    value: str | int | float | bool | list[str | int | float] | None = Field(
        None, description="A list for in"
    )


@tool("queryContacts", permission=ContactsPerm.VIEW, title="Query contacts by conditions", read_only=True)
def query_contacts(
    ctx: ToolContext,
    *,
    filters: Annotated[
        list[ContactFilter],
        Field(min_length=1, max_length=20, description="Conditions on fields"),
    ],
    match: Annotated[Literal["all", "any"], Field(description="All conditions must hold, or any")] = "all",
    sort: SortBy = "name",
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[ContactSummary]:
    """Find contacts by conditions on any field, business fields too. Free text: searchContacts."""
    from apps.contacts import query

    rows = selectors.with_health(Contact.objects.restrict(ctx.actor, trash="include"))
    if not any(item.field == "archived" for item in filters):
        rows = rows.filter(deleted_at__isnull=True)
    rows = query.apply(rows, filters, match).select_related("owner", "organisation")
    return paginate(rows.order_by(*SORTS[sort]), limit=limit, offset=offset, item=ContactSummary.of)


class CountryOut(Out):
    alpha2: str = Field(description="What contacts store")
    alpha3: str
    numeric: str
    name: str
    official_name: str
    calling_code: int | None = Field(description="e.g. 44")
    flag: str


class CountriesOut(Out):
    query: str
    matches: list[CountryOut]


@tool("lookupCountry", permission=ContactsPerm.VIEW, title="Look up a country", read_only=True)
def lookup_country(
    ctx: ToolContext,
    *,
    query: Annotated[
        str,
        Field(
            min_length=1,
            max_length=100,
            description="A name (Germany), a code (DE, DEU, 276) or a calling code (+49)",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=50, description="How many matches")] = 10,
) -> CountriesOut:
    """Find countries by name, ISO code or calling code; contacts store the alpha-2 code."""
    from apps.contacts import countries

    found = countries.search(query, limit=limit)
    return CountriesOut(query=query, matches=[CountryOut.model_validate(country) for country in found])
