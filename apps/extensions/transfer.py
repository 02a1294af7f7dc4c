"""Extension builds as a spreadsheet (apps.core.transfer): the builds a person may see, each its
project, version, status, size, hash and how many problems its validation found. Export only: a
build is made by uploading a bundle."""

from typing import Any

from django.utils.translation import gettext_lazy as _

from apps.core import transfer
from apps.extensions.models import Build
from apps.extensions.permissions import ExtensionsPerm


def _rows(actor: Any) -> Any:
    return Build.objects.restrict(actor, "view").select_related("project").order_by("id")


transfer.exportable(
    transfer.Exportable(
        kind="extension_build",
        label=_("Extension build"),
        permission=ExtensionsPerm.VIEW,
        columns=(
            ("id", lambda row: row.pk),
            ("project", lambda row: row.project.name),
            ("version", lambda row: row.version),
            ("status", lambda row: row.status),
            ("size", lambda row: row.size),
            ("sha256", lambda row: row.sha256),
            ("problems", lambda row: len(row.report.get("problems", []))),
            ("createdAt", lambda row: row.created_at),
            ("validatedAt", lambda row: row.validated_at),
        ),
        rows=_rows,
        search=("version",),
    )
)
