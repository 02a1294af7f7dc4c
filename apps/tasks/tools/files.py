"""Files a task produces: written or combined into the workspace's files."""

from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import EntityId, Out
from apps.files.api import ContentBase64, FileOut, Name, Text
from apps.tasks import files as task_files
from apps.tasks.permissions import TasksPerm
from apps.tasks.tools.common import FolderPath

OptionalTaskId = Annotated[
    int | None,
    Field(ge=1, description="Record it in this task's history"),
]
OptionalStepId = Annotated[int | None, Field(ge=1, description="Link it to this step of the task")]
IfExists = Annotated[
    Literal["rename", "error"], Field(description='If the name is taken: rename ("name (2).txt") or error')
]


class WrittenFileOut(Out):
    file: FileOut
    task_id: int | None
    step_id: int | None
    combined: str = Field(description="combineFiles: pages or text")


@tool("writeFile", permission=TasksPerm.EDIT, title="Write a file into the workspace's files")
def write_file(
    ctx: ToolContext,
    *,
    name: Name,
    text: Text = None,
    content_base64: ContentBase64 = None,
    folder: FolderPath = task_files.DEFAULT_FOLDER,
    task_id: OptionalTaskId = None,
    step_id: OptionalStepId = None,
    if_exists: IfExists = "rename",
) -> WrittenFileOut:
    """Write a task's output (text or base64) into the workspace's files; needs files.edit too."""
    from apps.files.api import content_of

    task, step = task_files.task_and_step(actor=ctx.actor, task_id=task_id, step_id=step_id)
    file = task_files.file_write(
        actor=ctx.actor,
        name=name,
        content=content_of(text, content_base64),
        folder_path=folder,
        task=task,
        step=step,
        if_exists=if_exists,
    )
    return WrittenFileOut(file=FileOut.of(file), task_id=task_id, step_id=step_id, combined="")


@tool("combineFiles", permission=TasksPerm.EDIT, title="Combine files into one")
def combine_files(
    ctx: ToolContext,
    *,
    file_ids: Annotated[
        list[EntityId],
        Field(min_length=2, max_length=20, description="In the order to combine them"),
    ],
    name: Name,
    folder: FolderPath = task_files.DEFAULT_FOLDER,
    headings: Annotated[bool, Field(description="Text: each file's name as a heading")] = True,
    task_id: OptionalTaskId = None,
    step_id: OptionalStepId = None,
    if_exists: IfExists = "rename",
) -> WrittenFileOut:
    """Combine files into a new one: PDFs into a .pdf, else their text into a .txt or .md."""
    task, step = task_files.task_and_step(actor=ctx.actor, task_id=task_id, step_id=step_id)
    file, how = task_files.files_combine(
        actor=ctx.actor,
        file_ids=file_ids,
        name=name,
        folder_path=folder,
        headings=headings,
        task=task,
        step=step,
        if_exists=if_exists,
    )
    return WrittenFileOut(file=FileOut.of(file), task_id=task_id, step_id=step_id, combined=how)
