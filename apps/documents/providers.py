"""The Documents area as other areas see it: contacts resolve document ids here, and files can
be attached to documents (apps.files.attachments)."""

from typing import Any

from apps.contacts.links import LinkedItem
from apps.documents import selectors


class DocumentTarget:
    kind = "document"
    area = "documents"

    def resolve(self, *, actor: Any, target_ids: list[int]) -> dict[int, LinkedItem]:
        return {
            pk: LinkedItem(
                id=pk,
                title=document.title,
                url=document.path,
                mime_type="text/html",
                updated_at=document.updated_at,
            )
            for pk, document in selectors.documents_by_ids(actor=actor, document_ids=target_ids).items()
        }


def _get(actor: Any, document_id: int, for_edit: bool) -> Any:
    getter = selectors.document_get_for_edit if for_edit else selectors.document_get
    return getter(actor=actor, document_id=document_id)


def register_entity() -> None:
    from apps.files import attachments

    attachments.register_entity(
        attachments.EntityType(
            key="document", area="documents", label="Document", model="documents.Document", get=_get
        )
    )
