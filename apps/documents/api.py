"""The Documents area's public module: what other areas may use of it. Nothing else of
apps.documents is theirs to import.

    title, text = api.document_text(actor=user, document_id=7)   # one the actor may read

`Document` is here for foreign keys' and answers' types.
"""

from apps.core.actors import Actor
from apps.documents.models import Document

__all__ = ["Document", "document_text"]


def document_text(*, actor: Actor, document_id: int) -> tuple[str, str]:
    """The title and plain text (its body without markup, as kept with it) of the document
    `document_id` if the actor may read it: the kit's "not found" or "in the trash" otherwise."""
    document: Document = Document.objects.fetch(actor, document_id)
    return document.title, document.body_text
