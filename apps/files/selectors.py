"""Reads about files and folders beyond what the access model gives (apps.core.records:
`File.objects.restrict(actor, "view")`, `File.objects.fetch(actor, id, "change")`).

Folders are seen by everyone whose role allows files.view. A file is seen when it is visible to
the whole workspace, or the actor owns it, or it is shared with them; files.admin sees every
file. Anything else, and anything of another workspace, is "not found".
"""

from django.db.models import QuerySet

from apps.core.actors import Actor
from apps.files.models import File, Folder


def folder_by_path(*, actor: Actor, path: str) -> Folder | None:
    """The live folder at "/A/B" (case-insensitive); "/" is the root (None)."""
    folder = None
    for part in [part for part in path.strip().split("/") if part]:
        folder = Folder.objects.restrict(actor).filter(parent=folder, name__iexact=part.strip()).first()
        if folder is None:
            raise Folder.access.not_found(Folder, path)
    return folder


def folder_contents(*, actor: Actor, folder: Folder | None) -> tuple[QuerySet[Folder], QuerySet[File]]:
    return (
        Folder.objects.restrict(actor).filter(parent=folder),
        File.objects.restrict(actor).filter(folder=folder).select_related("owner", "folder"),
    )


def files_by_ids(*, actor: Actor | None, file_ids: list[int]) -> dict[int, File]:
    """The live files among `file_ids` that `actor` may see (for links and attachments)."""
    rows = File.objects.restrict(actor).filter(pk__in=file_ids).select_related("folder")
    return {row.pk: row for row in rows}
