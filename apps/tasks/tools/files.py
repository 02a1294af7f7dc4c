"""Files a task produces: written or combined into the workspace's files."""

from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import EntityId, Out
from apps.files.shapes import ContentBase64, FileOut, Name, Text
from apps.tasks import files as task_files
from apps.tasks.permissions import TasksPerm
from apps.tasks.tools.common import FolderPath

OptionalTaskId = Annotated[
    int | None,
    Field(ge=1, description="The task it is for: recorded in its history (and linked to `stepId`)"),
]
OptionalStepId = Annotated[int | None, Field(ge=1, description="The step of that task it is the output of")]
IfExists = Annotated[
    Literal["rename", "error"],
    Field(description='When the name is taken in the folder: rename (default, "name (2).txt") or error'),
]


class WrittenFileOut(Out):
    file: FileOut
    task_id: int | None
    step_id: int | None
    combined: str = Field(description="combineFiles: pages (PDFs) or text; empty for writeFile")


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
    """Write a file (text, or base64 for binary content) into the workspace's files, for example
    what a task produced: a report, a CSV, a letter. With `taskId` it is recorded in the task's
    history, and with `stepId` linked to that step. Needs files.edit too; the workspace's file
    size limit applies."""
    from apps.files.shapes import content_of

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
        Field(min_length=2, max_length=20, description="The files, in the order to combine them"),
    ],
    name: Name,
    folder: FolderPath = task_files.DEFAULT_FOLDER,
    headings: Annotated[bool, Field(description="Text: put each file's name as a heading before it")] = True,
    task_id: OptionalTaskId = None,
    step_id: OptionalStepId = None,
    if_exists: IfExists = "rename",
) -> WrittenFileOut:
    """Combine several files of the workspace into one new file. If the new name ends in .pdf and
    every file is a PDF, their pages are joined into one PDF. Otherwise their text (text files,
    and PDF, Word, Excel and PowerPoint files read as readFileContent does) is joined, each under
    its name, into a text or Markdown file (.txt, .md). The files themselves do not change."""
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
