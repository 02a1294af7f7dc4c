"""Shapes every area reuses: the output base model, paging, and small common results.

Areas keep their tools small by building on these:

    @tool("listContacts", ...)
    def list_contacts(ctx, *, limit: Limit = 25, offset: Offset = 0, ...) -> Page[ContactSummary]:
        return paginate(selectors.contact_list(actor=ctx.actor), limit=limit, offset=offset,
                        item=ContactSummary.of)

Everything an agent reads is camelCase (`Out` aliases the snake_case attributes).
"""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from operator import attrgetter
from typing import Annotated, Any, Generic, Literal, Self, TypeVar, get_args, get_origin, overload

from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from apps.catalogue import customfields
from apps.core import clean, json_input
from apps.core.actors import Actor
from apps.core.errors import NothingToChange

# --- outputs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class From:
    """Where `Out.of_record` reads a field that the record holds under another name: an attribute
    path of the record (`archived: Annotated[bool, From("in_trash")]`, `From("contact.email")`),
    the way a serializer field names its `source`."""

    path: str


class Out(BaseModel):
    """Base of output models: camelCase on the wire, read from attributes.

    An answer about a record is read from it: `ContactRef.of_record(contact)` takes each field from
    the record's attribute of the same name, or from the one its `From` names (a nested shape from
    the related record, a person as a PersonRef, a list of shapes from the related rows: `stages:
    list[StageRef]` reads `pipeline.stages.all()`), and the keywords give the fields a record does
    not hold (`ScheduleOut.of_record(schedule, upcoming=...)`)."""

    model_config = ConfigDict(
        alias_generator=to_camel, validate_by_name=True, serialize_by_alias=True, from_attributes=True
    )

    @classmethod
    def of_record(cls, record: Any, **given: Any) -> Self:
        values = {name: given[name] if name in given else read(record) for name, read in _sources(cls)}
        return cls.model_validate(values)


@cache
def _sources(shape: type[Out]) -> tuple[tuple[str, Callable[[Any], Any]], ...]:
    """(field, how to read it from a record) for each field of an output shape."""
    sources = []
    for name, info in shape.model_fields.items():
        path = next((meta.path for meta in info.metadata if isinstance(meta, From)), name)
        read: Callable[[Any], Any] = attrgetter(path)
        (item,) = get_args(info.annotation) if get_origin(info.annotation) is list else (None,)
        if isinstance(item, type) and issubclass(item, Out):
            read = _rows_as(item, read)
        sources.append((name, read))
    return tuple(sources)


def _rows_as(item: type["Out"], read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Reads a list of shapes: the related rows of a manager (`pipeline.stages`, in the model's
    order, prefetched ones as they are), each as `item`; anything else as it is."""

    def rows(record: Any) -> Any:
        value = read(record)
        return [item.of_record(row) for row in value.all()] if hasattr(value, "all") else value

    return rows


# A record's tags, as an agent gives them (kept as apps.core.search.tags says).
Tag = Annotated[str, Field(min_length=1, max_length=50)]
Tags = Annotated[list[Tag], Field(max_length=30)]


# The years a date or date-time argument may fall in (the kit's, for every door).
YEARS = clean.YEARS


class TextChecked(BaseModel):
    """Base of every input model, a tool's arguments (`registry.ArgumentsModel`) and the objects
    nested in them (`In`): no text in them may hold what no store can keep, NUL or a lone UTF-16
    surrogate (`apps.core.json_input.text_problem`), and no date or date-time lies outside `YEARS`,
    whatever door the arguments came through. The MCP endpoint refuses such JSON text before it
    reaches a tool; the gateway's agent, callTool and in-process callers are stopped here, with
    the argument error that names the field, instead of failing in the database."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_flag_for_a_number(cls, value: Any, info: ValidationInfo) -> Any:
        # Pydantic reads true as 1 for a number: `capacity: true` would be one place, silently.
        if isinstance(value, bool) and info.field_name in _number_fields(cls):
            raise PydanticCustomError("bool_for_number", "must be a number, not true or false")
        return value

    @field_validator("*", mode="after")
    @classmethod
    def _storable_text(cls, value: Any) -> Any:
        found = _unstorable(value)
        if found is not None:
            where, problem = found
            raise PydanticCustomError(
                "unstorable_text", "{where}{problem}", {"where": where, "problem": problem}
            )
        return value


@cache
def _number_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of `model` that take a number and not a true or false."""

    def kinds(annotation: Any) -> set[Any]:
        found = {annotation}
        for inner in get_args(annotation):
            found |= kinds(inner)
        return found

    numbers = {int, float, Decimal}
    return frozenset(
        name
        for name, field in model.model_fields.items()
        if (found := kinds(field.annotation)) & numbers
        and bool not in found
        and get_origin(field.annotation) is not Literal
    )


def _unstorable(value: Any) -> tuple[str, str] | None:
    """(where inside `value`, what is wrong) for the first text of `value` that no store can keep,
    or date out of `YEARS`, or None. Models of this kind nested inside have checked their own
    fields already."""
    # (value, where): iterative, so that no nesting exhausts the interpreter's recursion.
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            problem = json_input.text_problem(item)
            if problem is not None:
                return (f"{where} " if where else ""), problem
        elif isinstance(item, date):  # a datetime is a date too
            if not clean.within_years(item.year):
                return (f"{where} " if where else ""), clean.years_problem()
        elif isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(key, str):
                    problem = json_input.text_problem(key)
                    if problem is not None:
                        return (f"{where} " if where else ""), f"a key {problem}"
                stack.append((inner, f"{where}.{key}" if where else str(key)))
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend((inner, f"{where}[{index}]") for index, inner in enumerate(item))
        elif isinstance(item, BaseModel) and not isinstance(item, TextChecked):
            stack.extend(
                (inner, f"{where}.{name}" if where else name) for name, inner in item.__dict__.items()
            )
    return None


class In(TextChecked):
    """Base of nested input objects (a list of filters, a set of changes): camelCase, strict."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, validate_by_name=False)


class Changes(In):
    """Partial updates: only the fields the agent sent are changed; an explicit null clears one."""

    def given(self, *, required: bool = False) -> dict[str, Any]:
        """The fields sent. `required`: an update that names no field at all is refused, so the
        caller hears of it instead of being told that nothing changed (unless it sends custom
        field values: apps.catalogue.customfields)."""
        found = {name: getattr(self, name) for name in self.model_fields_set}
        if required and not found and not customfields.values_given.get():
            raise NothingToChange(details={"changes": ["empty"]})
        return found


ItemT = TypeVar("ItemT")


class Page(Out, Generic[ItemT]):
    items: list[ItemT]
    total: int
    limit: int
    offset: int
    next_offset: int | None


class Done(Out):
    """The result of an action that has nothing else to say."""

    ok: bool = True
    message: str


class RefOut(Out):
    id: int
    name: str


class LinkOut(Out):
    """A page of the workspace, to open in a browser (what an `open...` tool answers:
    apps.catalogue.kit.open_tool)."""

    url: str


class TitledLinkOut(LinkOut):
    """A link with the title of what it opens (a record's name, the page's)."""

    title: str


class PersonRef(Out):
    """A person of the workspace (a user), not a contact."""

    id: int
    email: str
    name: str

    # Read from the person themselves (a user given where a PersonRef is expected).
    @model_validator(mode="before")
    @classmethod
    def _from_person(cls, value: Any) -> Any:
        if isinstance(value, dict) or not hasattr(value, "email"):
            return value
        return {"id": value.pk, "email": value.email, "name": value.full_name or value.email}

    @overload
    @classmethod
    def of(cls, user: None) -> None: ...
    @overload
    @classmethod
    def of(cls, user: Any) -> "PersonRef": ...
    @classmethod
    def of(cls, user: Any) -> "PersonRef | None":
        return None if user is None else cls.model_validate(user)


class HistoryOut(Out):
    """An entry of a record's history of changes (apps.core.history.Event), and the door it came
    through: an agent's tool call (the tool and the client), or none (a page, the service)."""

    id: int
    at: datetime
    kind: str
    summary: str
    changes: dict[str, Any] = Field(description="field: [before, after]")
    actor: PersonRef | None
    door: str = Field(description="mcp, gateway or empty (a page)")
    tool: str
    client: str = Field(description="The agent's app or API key")


class ShareOut(Out):
    person: PersonRef
    access: str

    @classmethod
    def many(cls, shares: Any) -> list["ShareOut"]:
        """The shares of a record (rows with `user` and `access`), by e-mail address."""
        rows = sorted(shares, key=lambda share: share.user.email)
        return [cls.of_record(share, person=share.user) for share in rows]


class SharingOut(Out):
    """Who may see a shareable record (apps.core.sharing)."""

    id: int
    visibility: str
    owner: PersonRef | None
    shared_with: list[ShareOut]

    @classmethod
    def of(cls, item: Any) -> "SharingOut":
        return cls.of_record(item, shared_with=ShareOut.many(item.shares.select_related("user")))


class EntityRef(Out):
    """A record of any area that something points at (apps.core.kinds), as it was named then."""

    type: str
    id: int
    title: str

    @classmethod
    def of_link(cls, link: Any) -> "EntityRef | None":
        """From a row with the generic-link fields (`content_type_id`, `object_id`, `entity_title`)."""
        from apps.core import kinds

        if link.content_type_id is None:
            return None
        return cls(
            type=kinds.type_of_content_type(link.content_type_id),
            id=link.object_id,
            title=link.entity_title,
        )


class EntityOut(EntityRef):
    """A linked record, with whether the reader may still open it."""

    available: bool = Field(description="False: gone or hidden")

    @classmethod
    def checked(cls, link: Any, actor: Actor) -> "EntityOut":
        """From a row with the generic-link fields, looked up again as `actor` sees it now."""
        from apps.core import kinds

        found = kinds.visible(actor=actor, content_type_id=link.content_type_id, object_id=link.object_id)
        if found is None:
            # Removed, or hidden from this reader: its title is not theirs to read either.
            kind = kinds.type_of_content_type(link.content_type_id)
            return cls(type=kind, id=link.object_id, title="", available=False)
        return cls.of_entity(found)

    @classmethod
    def of_entity(cls, entity: Any) -> "EntityOut":
        return cls.of_record(entity, available=True)


class FolderRef(Out):
    """A folder of an area's tree (apps.core.folders), with its path from the root."""

    id: int
    name: str
    path: str

    @classmethod
    def of(cls, folder: Any) -> "FolderRef | None":
        return None if folder is None else cls.of_record(folder)


class FolderOut(Out):
    """A folder of an area's tree, in full."""

    id: int
    name: str
    path: str
    parent: FolderRef | None = Field(description="null: the root")
    in_trash: bool
    created_at: datetime
    updated_at: datetime


@dataclass
class RawResult:
    """Content blocks given as they are, with no output schema: for fixture tools of the test
    settings (the MCP conformance suite) and for callTool, which answers the result of the tool
    it ran. Every other catalogue tool returns a pydantic model."""

    content: list[dict[str, Any]]
    structured: dict[str, Any] | None = None
    is_error: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, result: dict[str, Any]) -> "RawResult":
        """A CallToolResult (as `dispatch.call_tool` answers it) as it is."""
        return cls(
            content=result["content"],
            structured=result.get("structuredContent"),
            is_error=bool(result.get("isError")),
            meta=result.get("_meta") or {},
        )


# --- inputs -------------------------------------------------------------------------------------

MAX_OFFSET = 10_000

Limit = Annotated[int, Field(ge=1, le=100, description="Page size")]
Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET, description="From nextOffset")]
EntityId = Annotated[int, Field(ge=1, le=2**63 - 1)]


def id_field(found_in: str, **extra: Any) -> Any:
    """The field of an argument naming one record by id, which says the tool that finds the ids
    (`Annotated[int, id_field("searchContacts")]`: "From searchContacts"). "The contact's id" would
    only restate the argument's name, and the registry leaves such descriptions out."""
    return Field(ge=1, le=2**63 - 1, description=extra.pop("description", f"From {found_in}"), **extra)


# Folders of an area's tree (apps.core.folders).
FolderName = Annotated[str, Field(min_length=1, max_length=255, description="The folder's name")]
ParentFolderId = Annotated[int | None, Field(ge=1, description="The folder to put it in; null: the root")]
# Sharing a record with people (apps.core.sharing.change).
PersonEmail = Annotated[str | None, Field(max_length=254, description="A person of the workspace")]
ShareAccess = Annotated[Literal["view", "edit", "none"], Field(description="none stops sharing")]
VisibilityChange = Annotated[
    Literal["workspace", "private"] | None,
    Field(description="workspace: all who see the area; private: owner and shares"),
]
# A record of any area, named by its kind and id (apps.core.kinds).
EntityType = Annotated[
    str,
    Field(
        min_length=1,
        max_length=50,
        pattern=r"^[a-z][a-z_]*$",
        description="A record kind: contact, task, ...",
    ),
]


def paginate(
    rows: Any,
    *,
    limit: int,
    offset: int,
    item: Callable[[Any], ItemT],
) -> Page[ItemT]:
    """One page of a queryset (or a list), counted, with the offset of the next page."""
    total = rows.count() if hasattr(rows, "count") and not isinstance(rows, list) else len(rows)
    window = list(rows[offset : offset + limit])
    return page_of([item(row) for row in window], total=total, limit=limit, offset=offset)


def page_of(items: Sequence[ItemT], *, total: int, limit: int, offset: int) -> Page[ItemT]:
    """A page of items already chosen (`offset` and `limit` as asked), with the offset of the next."""
    end = offset + len(items)
    return Page[Any](
        items=list(items),
        total=total,
        limit=limit,
        offset=offset,
        next_offset=end if end < total and end <= MAX_OFFSET else None,
    )


def iso(value: datetime | date | None) -> str | None:
    return value.isoformat() if value is not None else None


def first(values: Iterable[Any]) -> Any:
    return next(iter(values), None)


def aware(value: datetime | None) -> datetime | None:
    """A date-time an agent gave without a zone (or a bare date, read as midnight) is in the
    caller's zone: their own, else their workspace's, which the dispatcher makes the active zone
    for the call (as a page does for the person who reads it)."""
    if value is None or value.tzinfo is not None:
        return value
    return value.replace(tzinfo=timezone.get_current_timezone())
