"""Personal data in Documents (docs/privacy.md).

A person's documents are those they own; exported with every version. On erasure their private
documents are trashed, then erased with their versions; documents visible to the whole workspace
are the workspace's records and stay, with the person no longer their owner (the people on
versions are set to null when the user is erased). Shares with the person are erased.
"""

from django.db.models import QuerySet
from django.utils import timezone

from apps.core import privacy
from apps.core.sharing import Visibility
from apps.documents.models import Document, DocumentFolder, DocumentShare, DocumentVersion


def _trash_private(rows: QuerySet[Document]) -> int:
    return rows.filter(visibility=Visibility.PRIVATE, deleted_at__isnull=True).update(
        deleted_at=timezone.now()
    )


def _erase(rows: QuerySet[Document]) -> int:
    kept = rows.exclude(visibility=Visibility.PRIVATE).update(owner=None)
    erased, _per_model = rows.filter(visibility=Visibility.PRIVATE).delete()
    return kept + erased


def _versions_of_private(rows: QuerySet[DocumentVersion]) -> int:
    return rows.filter(document__visibility=Visibility.PRIVATE).delete()[0]


privacy.register(Document, user="owner", soft_delete=_trash_private, erase=_erase, order=50)
privacy.register(DocumentVersion, user="document__owner", erase=_versions_of_private)
privacy.register(DocumentShare, user="user")
privacy.not_personal(DocumentFolder, reason="folder names of the workspace's document tree")
