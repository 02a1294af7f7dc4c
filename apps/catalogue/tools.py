"""The catalogue's own tools: finding the long tail without listing all of it, and running it."""

from typing import Annotated, Any

from pydantic import Field

from apps.catalogue import dispatch, registry, rerank, search
from apps.catalogue.checks import description_body, first_sentence
from apps.catalogue.dispatch import ToolContext, usable_tools
from apps.catalogue.errors import CallToolItself, NoSuchTool
from apps.catalogue.permissions import CataloguePerm
from apps.catalogue.registry import ToolSpec, tool
from apps.catalogue.shapes import Out, RawResult
from apps.core.kinds import finding
from apps.core.permissions import area_title
from apps.tenancy import links


class ToolBrief(Out):
    name: str
    title: str
    area: str
    summary: str = Field(description="The first sentence of the description")
    read_only: bool
    markers: list[str]


class AreaCount(Out):
    area: str = Field(description="The area's key, usable as a toolset")
    title: str
    tools: int


class ToolSearchOut(Out):
    query: str
    total: int = Field(description="How many tools match in all")
    matches: list[ToolBrief]
    areas: list[AreaCount] = Field(
        description="Every area you can use, with how many tools you may use in it"
    )


class ToolDescriptionOut(Out):
    name: str
    title: str
    area: str
    description: str
    markers: list[str]
    permission: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any]
    requires_confirmation: bool
    first_call: str | None = Field(description="The tool to call first in this area in each session, if any")


def _summary(spec: ToolSpec) -> str:
    return first_sentence(description_body(spec))[:300]


def _brief(spec: ToolSpec) -> ToolBrief:
    return ToolBrief.of_record(spec, summary=_summary(spec), markers=spec.markers.labels)


@tool("searchTools", permission=CataloguePerm.DISCOVER, title="Search the tool catalogue", read_only=True)
def search_tools(
    ctx: ToolContext,
    *,
    query: Annotated[
        str,
        Field(
            max_length=200, description="Words to look for in tool names and descriptions; empty lists all"
        ),
    ] = "",
    areas: Annotated[
        list[Annotated[str, Field(max_length=64)]] | None,
        Field(max_length=50, description="Only tools of these areas (keys such as `contacts`)"),
    ] = None,
    limit: Annotated[int, Field(ge=1, le=100, description="How many matches to return (1-100)")] = 20,
) -> ToolSearchOut:
    """Find the tools you may use for a request in plain words, best first. Use it instead of
    listing every tool; describeTool gives one's full schema and callTool runs it. The answer also
    counts your tools per area."""
    specs = usable_tools(ctx.principal)
    counts: dict[str, int] = {}
    for spec in specs:
        counts[spec.area] = counts.get(spec.area, 0) + 1
    if areas:
        specs = tuple(spec for spec in specs if spec.area in set(areas))
    if query.strip():
        found = rerank.reordered(ctx.principal, query, [spec for _score, spec in search.rank(specs, query)])
    else:
        found = list(specs)
    return ToolSearchOut(
        query=query,
        total=len(found),
        matches=[_brief(spec) for spec in found[:limit]],
        areas=[
            AreaCount(area=area, title=str(area_title(area)), tools=count)
            for area, count in sorted(counts.items())
        ],
    )


@tool(
    "describeTool", permission=CataloguePerm.DISCOVER, title="Describe a tool", read_only=True, on_loop=True
)
def describe_tool(
    ctx: ToolContext,
    *,
    name: Annotated[
        str, Field(min_length=1, max_length=100, description="The tool's exact name, e.g. getContact")
    ],
) -> ToolDescriptionOut:
    """Get one tool's full definition: schemas, annotations, confirmation and first call. Only
    tools you may use are described; callTool runs any of them."""
    spec = registry.get(name)
    if spec is None or not dispatch.may_use(ctx.principal, name):
        raise NoSuchTool(name=name)
    return description_of(spec)


# A tool's description is the same for everyone who may read it, until the registry changes: made
# once per registry version (its model and its JSON, dispatch.kept_answer).
_descriptions: dict[str, ToolDescriptionOut] = {}
_descriptions_version = -1


def description_of(spec: ToolSpec) -> ToolDescriptionOut:
    """describeTool's answer about `spec`, made once per registry version."""
    global _descriptions_version
    version = registry.version()
    if _descriptions_version != version:
        _descriptions.clear()
        _descriptions_version = version
    described = _descriptions.get(spec.name)
    if described is None:
        described = _descriptions[spec.name] = _describe(spec)
    return described


def _describe(spec: ToolSpec) -> ToolDescriptionOut:
    from apps.catalogue.policy import first_call_tool

    first = first_call_tool(spec.area)
    described = ToolDescriptionOut.of_record(
        spec,
        markers=spec.markers.labels,
        permission=spec.permission.value,
        input_schema=spec.definition["inputSchema"],
        output_schema=spec.definition.get("outputSchema"),
        requires_confirmation=spec.needs_confirmation,
        first_call=first.name if first is not None and first.name != spec.name else None,
    )
    dispatch.kept_answer(described)
    return described


Arguments = Annotated[dict[str, Any], Field(description="Its arguments, as describeTool shows them")]


@tool("callTool", permission=CataloguePerm.DISCOVER, title="Call a tool", runs_tools=True)
def call_tool(
    ctx: ToolContext,
    *,
    name: Annotated[
        str, Field(min_length=1, max_length=100, description="The tool's exact name, e.g. getContact")
    ],
    arguments: Arguments = {},  # noqa: B006 (the input model copies it for each call)
) -> RawResult:
    """Run any tool you may use by name, including one your tool list leaves out. It runs and
    answers exactly as a direct call of it would, with the same confirmations and first calls: a
    confirmationToken goes inside `arguments`. Find tools with searchTools and their arguments with
    describeTool."""
    target = registry.get(name)
    if target is not None and target.runs_tools:
        raise CallToolItself(name=name)
    try:
        return RawResult.of(dispatch.call_tool(ctx, name, arguments))
    except dispatch.ToolNotFound:
        # The same answer for a tool that does not exist and one this person may not use (its
        # row in the log, `not_found` under that name, is written by call_tool).
        unknown = f"Unknown tool: {name}. Nothing was done; searchTools finds the tools you may use."
        return RawResult(content=[{"type": "text", "text": unknown}], is_error=True)


class RecordFound(Out):
    id: int
    title: str
    url: str | None = Field(description="The page that opens it, where it has one")


class KindFound(Out):
    kind: str = Field(description="The kind's key (entityType elsewhere: contact, deal, ticket...)")
    label: str
    total: int = Field(description="How many records of this kind hold the words, in all")
    records: list[RecordFound] = Field(description="The best first")


class WorkspaceSearchOut(Out):
    query: str
    total: int = Field(description="How many records hold the words, of every kind")
    kinds: list[KindFound] = Field(description="The kinds with the best record first")


@tool(
    "searchWorkspace", permission=CataloguePerm.DISCOVER, title="Search the whole workspace", read_only=True
)
def search_workspace(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(min_length=1, max_length=200, description="Words the records hold")],
    kinds: Annotated[
        list[Annotated[str, Field(max_length=64)]] | None,
        Field(max_length=50, description="Only these kinds (keys such as contact, deal, ticket); none: all"),
    ] = None,
    limit: Annotated[
        int, Field(ge=1, le=finding.MAX_LIMIT, description="Records per kind (1-50)")
    ] = finding.LIMIT,
) -> WorkspaceSearchOut:
    """Find records you may open by the words they hold, across every area, grouped by kind.
    When you do not know which area holds something; searchTools finds tools, not records."""
    found = finding.search(ctx.actor, query, kinds=kinds or None, limit=limit)
    origin = links.site_origin()
    return WorkspaceSearchOut(
        query=query,
        total=sum(group.total for group in found),
        kinds=[
            KindFound(
                kind=group.kind.key,
                label=group.kind.name,
                total=group.total,
                records=[
                    RecordFound(id=hit.id, title=hit.title, url=origin + hit.url if hit.url else None)
                    for hit in group.hits
                ],
            )
            for group in found
        ],
    )
