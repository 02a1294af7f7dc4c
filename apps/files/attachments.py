"""The shared table of attachments (`Attachment`): the links of every record kind that carries
files or documents and does not keep them itself (apps.core.kinds.attachments uses it)."""

from typing import Any

from django.contrib.contenttypes.models import ContentType

from apps.accounts.models import person
from apps.core.actors import Actor
from apps.core.kinds.attachments import Linked
from apps.files.models import Attachment


class AttachmentStore:
    def link(
        self, *, actor: Actor | None, record: Any, item_kind: str, item_id: int, title: str, remove: bool
    ) -> bool:
        content_type = ContentType.objects.get_for_model(record)
        rows = Attachment.objects.filter(
            kind=item_kind, item_id=item_id, content_type=content_type, object_id=record.pk
        )
        if remove:
            return rows.delete()[0] > 0
        if rows.exists():
            return False
        Attachment.objects.create(
            kind=item_kind,
            item_id=item_id,
            content_type=content_type,
            object_id=record.pk,
            title=title,
            attached_by=person(actor),
        )
        return True

    def linked(self, *, actor: Actor | None, record: Any, item_kind: str) -> list[Linked]:
        rows = Attachment.objects.filter(
            kind=item_kind, content_type=ContentType.objects.get_for_model(record), object_id=record.pk
        ).select_related("attached_by")[:500]
        return [Linked(item_kind, row.item_id, row.attached_at, row.attached_by) for row in rows]

    def records_with(self, *, item_kind: str, item_id: int) -> list[tuple[int, int]]:
        rows = Attachment.objects.filter(kind=item_kind, item_id=item_id)
        return list(rows.values_list("content_type_id", "object_id"))

    def forget(self, *, item_kind: str, item_ids: list[int]) -> None:
        Attachment.objects.filter(kind=item_kind, item_id__in=item_ids).delete()
