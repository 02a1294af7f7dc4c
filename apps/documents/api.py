"""The Documents area's public module: what other areas may use of it. Nothing else of
apps.documents is theirs to import.

    title, text = api.document_text(actor=user, document_id=7)   # one the actor may read
    api.shared_with(user)                 # the live documents shared with a person, by title
    api.shared_document(user, document_id)  # one of them, or None

The client portal (apps.platform.portal) shows its people the shared ones, and nothing else.
`Document` is here for foreign keys' and answers' types.
"""

from typing import Any

from django.db.models import QuerySet

from apps.core.actors import Actor
from apps.documents.models import Document

__all__ = ["Document", "document_text", "shared_document", "shared_with", "shared_with_any"]


def document_text(*, actor: Actor, document_id: int) -> tuple[str, str]:
    """The title and plain text (its body without markup, as kept with it) of the document
    `document_id` if the actor may read it: the kit's "not found" or "in the trash" otherwise."""
    document: Document = Document.objects.fetch(actor, document_id)
    return document.title, document.body_text


def shared_with(user: Any) -> QuerySet[Document]:
    """The documents, not in the trash, shared with `user` by a share of their own (whatever
    their role would let them see otherwise)."""
    return Document.objects.filter(shares__user=user, deleted_at__isnull=True).order_by("title", "pk")


def shared_with_any(users: Any) -> QuerySet[Document]:
    """The live documents shared with any of `users` (a queryset of people), each once."""
    return Document.objects.filter(shares__user__in=users, deleted_at__isnull=True).distinct()


def shared_document(user: Any, document_id: int) -> Document | None:
    return shared_with(user).filter(pk=document_id).first()
