"""Tasks write into the workspace's files (apps.files, docs/files.md): writeFile, combineFiles,
and the steps of kind `write_file`.

A file written for a task is recorded in the task's history (`file_written`, with the file's id)
and, for a step, linked to that step (a `file` record: apps.core.kinds). The Files area checks
`files.edit` and the size limit, and its blobs make the bytes part of the caller's transaction:
if the tool call fails, no file is left behind.
"""

import io
import logging
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from pypdf import PdfReader, PdfWriter
from pypdf.errors import PdfReadError

from apps.accounts.models import person
from apps.core import kinds
from apps.core.actors import Actor
from apps.core.errors import AppError, invalid
from apps.core.records import Visibility, derived_visibility
from apps.files import api as files
from apps.files.api import File
from apps.tasks import selectors
from apps.tasks.models import Task, TaskEvent, TaskStep, TaskStepLink
from apps.tasks.runner import Outcome, record

logger = logging.getLogger(__name__)

DEFAULT_FOLDER = "/Task outputs"
MAX_COMBINED = 20


def task_and_step(
    *, actor: Actor, task_id: int | None, step_id: int | None
) -> tuple[Task | None, TaskStep | None]:
    """The task (which the actor may change) and step a file is written for, if any."""
    if task_id is None:
        if step_id is not None:
            raise invalid("task_id", _("give the task of the step"))
        return None, None
    task = selectors.task_for_change(actor=actor, task_id=task_id)
    return task, selectors.step_get(task=task, step_id=step_id) if step_id else None


def file_write(
    *,
    actor: Actor,
    name: str,
    content: bytes,
    folder_path: str = DEFAULT_FOLDER,
    mime_type: str | None = None,
    task: Task | None = None,
    step: TaskStep | None = None,
    if_exists: str = "rename",
    description: str = "",
    what: str = "",
    visibility: str = Visibility.WORKSPACE,
) -> File:
    """A new file in the folder at `folder_path` (made where missing), for `task` (and its
    `step`) if given; `what` says in the task's history how it was made (default: written)."""
    folder = files.folder_ensure(actor=actor, path=folder_path or DEFAULT_FOLDER)
    file = files.file_create(
        actor=actor,
        name=name,
        content=content,
        folder=folder,
        mime_type=mime_type,
        description=description,
        source=files.Source.TASK,
        origin=f"task {task.pk}" if task is not None else "",
        if_exists=if_exists,
        visibility=visibility,
    )
    if task is not None:
        if step is not None:
            link = TaskStepLink(step=step, linked_by=person(actor))
            link.link_to(kinds.of_record(file))
            link.save()
        how = what or _("written")
        record(
            task,
            actor,
            TaskEvent.Kind.FILE_WRITTEN,
            f"{how}: file {file.pk}",
            step=step,
            data={"file_id": file.pk},
        )
    return file


def _is_pdf(file: File) -> bool:
    return file.mime_type == "application/pdf"


def _merged_pdf(sources: list[File]) -> bytes:
    writer = PdfWriter()
    for source in sources:
        try:
            reader = PdfReader(io.BytesIO(files.file_bytes(source)))
            if reader.is_encrypted:
                raise invalid("file_ids", _("file {id} is a PDF protected by a password"), id=source.pk)
            for page in reader.pages:
                writer.add_page(page)
        except PdfReadError as error:
            raise invalid("file_ids", _("file {id} is not a readable PDF"), id=source.pk) from error
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _joined_text(sources: list[File], *, headings: bool) -> bytes:
    parts = []
    for source in sources:
        try:
            text = files.file_text(source).strip()
        except files.CannotExtract as error:
            raise invalid(
                "file_ids",
                _("the text of file {id} ({type}) cannot be read, so it cannot be combined"),
                id=source.pk,
                type=source.mime_type,
            ) from error
        parts.append(f"# {source.name}\n\n{text}" if headings else text)
    return ("\n\n".join(parts) + "\n").encode("utf-8")


def files_combine(
    *,
    actor: Actor,
    file_ids: list[int],
    name: str,
    folder_path: str = DEFAULT_FOLDER,
    headings: bool = True,
    task: Task | None = None,
    step: TaskStep | None = None,
    if_exists: str = "rename",
) -> tuple[File, str]:
    """One new file made of several: their pages, when every one is a PDF and the new name ends
    in .pdf; otherwise their text, one after the other; private if any of them is
    (`derived_visibility`). Returns the file and how it combined them."""
    if len(set(file_ids)) != len(file_ids):
        raise invalid("file_ids", _("each file once"))
    sources = [files.file(actor=actor, file_id=pk) for pk in file_ids]
    if name.lower().endswith(".pdf"):
        others = [str(f.pk) for f in sources if not _is_pdf(f)]
        if others:
            raise invalid(
                "name",
                _(
                    "a .pdf is made of PDFs only; not PDFs: {ids} (give a .txt or .md name to combine "
                    "their text)"
                ),
                ids=", ".join(others),
            )
        content, how, mime = _merged_pdf(sources), "pages", "application/pdf"
    else:
        content, how = _joined_text(sources, headings=headings), "text"
        mime = "text/markdown" if name.lower().endswith(".md") else "text/plain"
    file = file_write(
        actor=actor,
        name=name,
        content=content,
        folder_path=folder_path,
        mime_type=mime,
        task=task,
        step=step,
        if_exists=if_exists,
        description=_("Combined from files %(ids)s") % {"ids": ", ".join(map(str, file_ids))},
        what=_("combined from files %(ids)s") % {"ids": ", ".join(map(str, file_ids))},
        visibility=derived_visibility(*sources),
    )
    return file, how


# --- write_file steps ------------------------------------------------------------------------------


def clean_step_file(value: Any) -> dict[str, str]:
    """What a write_file step writes: {"name", "text", "folder"}."""
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    if not isinstance(value, dict) or not str(value.get("name") or "").strip():
        raise invalid("file", _("give the file's name and text"))
    return {
        "name": str(value["name"]).strip()[:255],
        "text": str(value.get("text") or ""),
        "folder": str(value.get("folder") or DEFAULT_FOLDER)[:500],
    }


def write_step(task: Task, step: TaskStep, actor: Actor | None) -> Outcome:
    """Performs a write_file step: as the actor, or (a scheduled run) as the task's owner."""
    spec = step.config.get("file") or {}
    person = actor or task.owner
    if person is None:
        return Outcome(_("Nobody to write the file as: the task has no owner."), failed=True)
    try:
        # A savepoint: a file that cannot be written leaves nothing (a folder made on the way), and
        # the step fails with the reason instead of the whole call.
        with transaction.atomic():
            file = file_write(
                actor=person,
                name=spec["name"],
                content=spec["text"].encode("utf-8"),
                folder_path=spec["folder"],
                task=task,
                step=step,
            )
    except AppError as error:
        return Outcome(str(error.message), failed=True)
    return Outcome(_("Wrote file %(id)s.") % {"id": file.pk}, data={"file_id": file.pk})
