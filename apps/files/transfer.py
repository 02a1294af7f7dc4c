"""Files as a spreadsheet (apps.core.transfer): the list of the files a person may read (their
own, those shared with them, the workspace's; another person's private one never), each its name,
folder, owner, dates, size and type, not its content. Export only: a file's bytes come in through
its upload (addFile, the Files page), which no row of a table carries."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import transfer
from apps.core.folders import path_of
from apps.files.models import File
from apps.files.permissions import FilesPerm


def _email(user: Any) -> str:
    return user.email if user is not None else ""


transfer.exportable(
    transfer.Exportable(
        kind="file",
        label=_("File"),
        permission=FilesPerm.VIEW,
        columns=(
            ("id", lambda file: file.pk),
            ("name", lambda file: file.name),
            ("folder", lambda file: path_of(file.folder)),
            ("size", lambda file: file.size),
            ("mimeType", lambda file: file.mime_type),
            ("description", lambda file: file.description),
            ("ownerEmail", lambda file: _email(file.owner)),
            ("visibility", lambda file: file.visibility),
            ("source", lambda file: file.source),
            ("createdAt", lambda file: file.created_at),
            ("updatedAt", lambda file: file.updated_at),
        ),
        rows=lambda actor: (
            File.objects.restrict(actor, "view")
            .select_related("folder__parent__parent", "owner")
            .defer("text")
            .order_by("id")
        ),
        search=("name", "description"),
    )
)
