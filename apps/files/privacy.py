"""Personal data in Files (docs/privacy.md).

A person's files are those they own. Exported: the rows and the bytes. On erasure, their private
files (which only they and the people they shared them with could see) are trashed, then erased
with their bytes; files visible to the whole workspace are the workspace's records and stay,
with the person no longer their owner. Shares with the person and the e-mails they sent
(or that went to their address) are erased. Folders and attachments hold names and ids of the
workspace's records only; the people on them are set to null when the user is erased.
"""

from collections.abc import Callable
from typing import IO, Any

from django.db.models import Q, QuerySet

from apps.core import privacy, sharing
from apps.core.sharing import Visibility
from apps.files import blobs
from apps.files.models import Attachment, Delivery, File, FileShare, Folder


class OwnedFiles(privacy.ModelHandler):
    def files(self, subject: privacy.Subject) -> list[privacy.ExportFile]:
        return [
            privacy.ExportFile(
                archive_name=f"{self.label}/{file.pk}/{file.name}",
                open=_opener(file.blob),
            )
            for file in self.queryset(subject).order_by("pk")
        ]


def _opener(key: str) -> Callable[[], IO[bytes]]:
    return lambda: blobs.storage().open(key, "rb")


def _erase(rows: QuerySet[File]) -> int:
    private = list(rows.filter(visibility=Visibility.PRIVATE))
    kept = rows.exclude(visibility=Visibility.PRIVATE).update(owner=None)
    from apps.files.services import erase_rows

    erase_rows(private)
    return kept + len(private)


def _deliveries(subject: privacy.Subject) -> Any:
    found = Q(recipients__contains=[subject.email.lower()])
    if subject.user is not None:
        found |= Q(sent_by=subject.user)
    return Delivery.objects.filter(found)


privacy.register_handler(
    OwnedFiles(
        File,
        user="owner",
        exclude=["blob", "text"],
        soft_delete=sharing.trash_private,
        erase=_erase,
        order=50,
    )
)
privacy.register(FileShare, user="user")
privacy.register(Delivery, find=_deliveries)
privacy.not_personal(Folder, reason="folder names of the workspace's file tree")
privacy.not_personal(Attachment, reason="which file or document is attached to which record, by id")
