"""The Documents area's public module: what other areas may use of it. Nothing else of
apps.documents is theirs to import.

    api.shared_with(user)                 # the live documents shared with a person, by title
    api.shared_document(user, document_id)  # one of them, or None

The client portal (apps.platform.portal) shows its people these, and nothing else.
`Document` is here for answers' types.
"""

from typing import Any

from django.db.models import QuerySet

from apps.documents.models import Document

__all__ = ["Document", "shared_document", "shared_with", "shared_with_any"]


def shared_with(user: Any) -> QuerySet[Document]:
    """The documents, not in the trash, shared with `user` by a share of their own (whatever
    their role would let them see otherwise)."""
    return Document.objects.filter(shares__user=user, deleted_at__isnull=True).order_by("title", "pk")


def shared_with_any(users: Any) -> QuerySet[Document]:
    """The live documents shared with any of `users` (a queryset of people), each once."""
    return Document.objects.filter(shares__user__in=users, deleted_at__isnull=True).distinct()


def shared_document(user: Any, document_id: int) -> Document | None:
    return shared_with(user).filter(pk=document_id).first()
