"""Documents as a spreadsheet (apps.core.transfer): the list of the documents a person may read
(their own, those shared with them, the workspace's; another person's private one never), each its
title, folder, owner, dates and size, not its text. Export only: a document is written, and its
versions kept, through its own page and tools; its text is no cell of a table."""

from typing import Any

from django.db.models.functions import Length
from django.utils.translation import gettext_lazy as _

from apps.core import transfer
from apps.core.folders import path_of
from apps.documents.models import Document
from apps.documents.permissions import DocumentsPerm


def _email(user: Any) -> str:
    return user.email if user is not None else ""


def _rows(actor: Any) -> Any:
    return (
        Document.objects.restrict(actor, "view")
        .select_related("folder__parent__parent", "owner", "updated_by")
        .defer("body_html", "body_text")
        .annotate(characters=Length("body_text"))
        .order_by("id")
    )


transfer.exportable(
    transfer.Exportable(
        kind="document",
        label=_("Document"),
        permission=DocumentsPerm.VIEW,
        columns=(
            ("id", lambda document: document.pk),
            ("title", lambda document: document.title),
            ("folder", lambda document: path_of(document.folder)),
            ("ownerEmail", lambda document: _email(document.owner)),
            ("visibility", lambda document: document.visibility),
            ("version", lambda document: document.version),
            ("characters", lambda document: document.characters),
            ("createdAt", lambda document: document.created_at),
            ("updatedAt", lambda document: document.updated_at),
            ("updatedByEmail", lambda document: _email(document.updated_by)),
        ),
        rows=_rows,
        search=("title",),
    )
)
