"""Personal data in the Extension Builder (docs/privacy.md): the projects a person proposed are
theirs (exported with their briefs); on erasure their private projects are put in the bin then
erased, the workspace's stay as the workspace's with no owner. Uploads and builds are bytes of
bundles and their reports, about nobody."""

from typing import Any

from django.core.files.storage import default_storage
from django.db.models import QuerySet

from apps.core import privacy, sharing
from apps.core.records import Visibility
from apps.extensions.models import Build, Chunk, Project, Upload


def _export(project: Any) -> dict[str, Any]:
    return {
        "name": project.name,
        "brief": project.brief,
        "description": project.description,
        "category": project.category,
        "scopes": project.scopes,
        "locales": project.locales,
        "visibility": project.visibility,
        "createdAt": project.created_at.isoformat(),
    }


def _erase(rows: QuerySet[Project]) -> int:
    """`sharing.erase_owned`, and the bytes of the private projects it deletes (their logo, their
    builds' bundles and their uploads' chunks) taken off the storage once the erasure is kept."""
    erased = rows.filter(visibility=Visibility.PRIVATE)
    names = [name for name in erased.values_list("logo", flat=True) if name]
    names += list(Build.objects.filter(project__in=erased).values_list("bundle", flat=True))
    chunks = Chunk.objects.filter(upload__project__in=erased).select_related("upload")
    names += [chunk.path for chunk in chunks]
    count = sharing.erase_owned(rows)
    privacy.delete_files_when_kept((default_storage, name) for name in names)
    return count


privacy.register(
    Project,
    user="owner",
    export=_export,
    soft_delete=sharing.trash_private,
    erase=_erase,
    order=50,
)
privacy.not_personal(Upload, reason="a bundle's upload in progress: sizes, hashes and an expiry")
privacy.not_personal(Chunk, reason="a part of a bundle's bytes")
privacy.not_personal(Build, reason="a version of a bundle and its validation report")
