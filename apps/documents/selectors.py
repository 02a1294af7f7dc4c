"""Reads about documents beyond what the access model gives (apps.core.records:
`Document.objects.restrict(actor, "view")`, `Document.objects.fetch(actor, id, "change")`)."""

from apps.documents import errors
from apps.documents.models import Document, DocumentVersion


def version_get(*, document: Document, number: int) -> DocumentVersion:
    found = document.versions.filter(number=number).select_related("created_by").first()
    if found is None:
        raise errors.VersionNotFound(document=document.pk, number=number, latest=document.version)
    return found
