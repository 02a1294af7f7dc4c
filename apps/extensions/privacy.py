"""Personal data in the Extension Builder (docs/privacy.md): the projects a person proposed are
theirs (exported with their briefs); on erasure their private projects are put in the bin then
erased, the workspace's stay as the workspace's with no owner. Uploads and builds are bytes of
bundles and their reports, about nobody."""

from typing import Any

from apps.core import privacy, sharing
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


privacy.register(
    Project,
    user="owner",
    export=_export,
    soft_delete=sharing.trash_private,
    erase=sharing.erase_owned,
    order=50,
)
privacy.not_personal(Upload, reason="a bundle's upload in progress: sizes, hashes and an expiry")
privacy.not_personal(Chunk, reason="a part of a bundle's bytes")
privacy.not_personal(Build, reason="a version of a bundle and its validation report")
