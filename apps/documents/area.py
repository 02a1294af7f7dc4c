"""The Documents area, as the rest of the service knows it (apps.core.areas)."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.actors import Actor
from apps.core.kinds import Item, Kind, page
from apps.core.navigation import NavItem
from apps.documents.models import Document
from apps.documents.permissions import DocumentsPerm


def describe(*, actor: Actor | None, ids: list[int]) -> dict[int, Item]:
    """Documents as items other records carry (linked to a contact, attached to a task)."""
    rows = Document.objects.restrict(actor, "view").filter(pk__in=ids).select_related("folder")
    return {
        document.pk: Item(
            id=document.pk,
            title=document.title,
            url=document.path,
            mime_type="text/html",
            updated_at=document.updated_at,
        )
        for document in rows
    }


area = areas.declare(
    title=_("Documents"),
    group=areas.Group.CONTENT,
    description=_("Rich-text documents in folders, with their versions"),
    words="document doc note memo write-up report page wiki policy text version",
    hints={
        "createDocument": "write draft a new doc note memo proposal report page, in markdown",
        "getDocument": (
            "open read a doc, what it says, its earlier versions, who it is shared with, its files"
        ),
        "listDocuments": "all docs in a folder, find a doc by words, recently edited docs",
        "updateDocument": "edit rewrite change a doc's text or title, add a paragraph, fix a typo",
        "moveDocument": "put a doc in another folder out of a folder top level",
        "deleteDocument": "bin trash remove a doc",
        "shareDocument": (
            "give a colleague access to a doc, let someone edit it, make it visible or private, edit "
            "rights, take away someone's access"
        ),
        "exportDocumentToPdf": "print save a doc as pdf, a printable copy",
        "createDocumentFolder": "new folder for docs",
    },
    profiles={
        "essentials": ("listDocuments", "getDocument", "createDocument", "updateDocument"),
        # What is shared with the client portal's users (apps.platform.portal).
        "portal": ("listDocuments", "getDocument", "shareDocument"),
        "operations": (
            "listDocuments",
            "getDocument",
            "createDocument",
            "updateDocument",
            "moveDocument",
            "shareDocument",
        ),
        "people": ("listDocuments", "getDocument", "createDocument", "updateDocument"),
        "support": ("listDocuments", "getDocument"),
        "media": ("listDocuments", "getDocument"),
        "events": ("createDocument", "getDocument"),
        "housekeeping": ("createDocumentFolder", "deleteDocument", "exportDocumentToPdf", "moveDocument"),
    },
    nav=[NavItem("documents", _("Documents"), "documents:list", DocumentsPerm.VIEW, order=32)],
    kinds=[
        Kind(
            "document",
            "documents.Document",
            describe=describe,
            carries=("file",),
            url=page("documents:detail", "document_id"),
            search=("title", "body_text"),
        ),
    ],
    not_kinds={
        "documents.DocumentFolder": "a folder of the documents' tree: links name a document, not where it is",
    },
    settings={
        # The longest document body accepted (characters of sanitised HTML).
        "ATRIUM_DOCUMENTS_MAX_CHARS": env.int("ATRIUM_DOCUMENTS_MAX_CHARS", 1_000_000, min=0),
    },
)
