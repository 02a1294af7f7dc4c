"""The Files area as other areas see it: contacts (and attachments) resolve file ids here."""

from typing import Any

from apps.contacts.links import LinkedItem
from apps.files import selectors


class FileTarget:
    kind = "file"
    area = "files"

    def resolve(self, *, actor: Any, target_ids: list[int]) -> dict[int, LinkedItem]:
        return {
            pk: LinkedItem(
                id=pk,
                title=file.name,
                url=file.path,
                mime_type=file.mime_type,
                size=file.size,
                updated_at=file.updated_at,
            )
            for pk, file in selectors.files_by_ids(actor=actor, file_ids=target_ids).items()
        }
