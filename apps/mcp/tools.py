"""The catalogue's tools for tasks (apps.mcp.jobs), for agents whose client does not run MCP tasks
itself (2025-06-18 clients, and 2025-11-25 ones that do not declare them): startToolTask runs a
long tool in the background, getToolTaskStatus tells where it is and gives its result. A task made
either way is the same task: a client that polls `tasks/get` sees one made by startToolTask.
"""

from datetime import datetime
from typing import Annotated, Any

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue import dispatch, registry
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.permissions import CataloguePerm
from apps.catalogue.registry import tool
from apps.catalogue.shapes import From, Out
from apps.core.errors import invalid
from apps.mcp import jobs
from apps.mcp.errors import NoSuchToolTask, UnknownTool
from apps.mcp.models import McpTask
from apps.tenancy import links

TaskId = Annotated[str, Field(min_length=1, max_length=64, description="From startToolTask")]


class ToolTaskOut(Out):
    task_id: str
    tool: str
    status: str = Field(description="working, completed, failed or cancelled")
    status_message: str
    created_at: datetime
    last_updated_at: Annotated[datetime, From("updated_at")]
    poll_interval_ms: int = Field(description="Check again after this long")
    result: Any = Field(None, description="Once completed or failed: the tool's answer")

    @classmethod
    def of(cls, row: McpTask) -> "ToolTaskOut":
        result: Any = None
        if row.result is not None:
            result = row.result.get("structuredContent")
            if result is None:
                result = " ".join(
                    str(part.get("text", ""))
                    for part in row.result.get("content", [])
                    if isinstance(part, dict)
                )
        return cls.of_record(row, result=result)


@tool(
    "startToolTask",
    permission=CataloguePerm.DISCOVER,
    title="Start a long tool in the background",
    open_world=True,
)
def start_tool_task(
    ctx: ToolContext,
    *,
    name: Annotated[
        str, Field(min_length=1, max_length=100, description="A long tool, e.g. exportDocumentToPdf")
    ],
    arguments: Annotated[dict[str, Any] | None, Field(description="As for a direct call")] = None,
) -> ToolTaskOut:
    """Run a long tool (an export, an import) in the background; answers at once with a task id.
    getToolTaskStatus gives its status and, once done, its answer."""
    spec = registry.get(name)
    if spec is None or not dispatch.may_use(ctx.principal, name):
        raise UnknownTool(name=name)
    if not spec.long_running:
        raise invalid(
            "name", _("{name} is quick: call it directly (callTool runs any tool by name)"), name=name
        )
    row = jobs.task_start(
        principal=ctx.principal,
        digest=ctx.session.session_id if ctx.door == "mcp" else "",
        origin=links.site_origin(),
        spec=spec,
        arguments=arguments or {},
        ttl_ms=None,
    )
    return ToolTaskOut.of(row)


@tool("getToolTaskStatus", permission=CataloguePerm.DISCOVER, title="Check a background tool", read_only=True)
def get_tool_task_status(ctx: ToolContext, *, task_id: TaskId) -> ToolTaskOut:
    """Check a tool running in the background (startToolTask, or an MCP task); its answer once done."""
    row = jobs.task_of(ctx.principal, task_id)
    if row is None:
        raise NoSuchToolTask(task=task_id)
    return ToolTaskOut.of(row)
