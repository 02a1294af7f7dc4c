"""Personal data in Documents (docs/privacy.md).

A person's documents are those they own; exported with every version. On erasure their private
documents are trashed, then erased with their versions; documents visible to the whole workspace
are the workspace's records and stay, with the person no longer their owner (the people on
versions are set to null when the user is erased). Shares with the person are erased.
"""

from django.db.models import QuerySet

from apps.core import privacy, sharing
from apps.core.sharing import Visibility
from apps.documents.models import Document, DocumentFolder, DocumentShare, DocumentVersion


def _versions_of_private(rows: QuerySet[DocumentVersion]) -> int:
    return rows.filter(document__visibility=Visibility.PRIVATE).delete()[0]


privacy.register(
    Document, user="owner", soft_delete=sharing.trash_private, erase=sharing.erase_owned, order=50
)
privacy.register(DocumentVersion, user="document__owner", erase=_versions_of_private)
privacy.register(DocumentShare, user="user")
privacy.not_personal(DocumentFolder, reason="folder names of the workspace's document tree")
