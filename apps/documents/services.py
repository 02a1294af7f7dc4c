"""Writes about documents. Each checks the actor's permission itself and logs ids only."""

import logging
from typing import Any

from django.conf import settings
from django.db import transaction

from apps.accounts.models import person
from apps.core import folders as trees
from apps.core.actors import Actor, require
from apps.core.records import Visibility, derived_visibility
from apps.documents import errors, pdf, richtext, selectors
from apps.documents.models import Document, DocumentFolder, DocumentVersion
from apps.documents.permissions import DocumentsPerm

logger = logging.getLogger(__name__)

EXPORT_FOLDER = "/Document exports"


def clean_title(value: str) -> str:
    title = " ".join((value or "").split())
    if not title:
        raise errors.TitleEmpty(details={"title": ["empty"]})
    if len(title) > 300:
        raise errors.TitleTooLong(details={"title": ["too long"]})
    return title


def clean_body(content: str, fmt: str) -> tuple[str, str]:
    """(sanitised HTML, plain text) of content written as markdown, html or text."""
    if fmt not in richtext.FORMATS:
        raise errors.UnknownFormat(formats=", ".join(richtext.FORMATS), details={"format": ["unknown"]})
    limit = int(settings.ATRIUM_DOCUMENTS_MAX_CHARS)
    if len(content) > limit * 2:
        raise errors.ContentTooLong(length=len(content), most=limit, details={"content": ["too long"]})
    body = richtext.to_html(content, fmt)
    if len(body) > limit:
        raise errors.HtmlTooLong(length=len(body), most=limit, details={"content": ["too long"]})
    return body, richtext.to_text(body)


# --- folders ------------------------------------------------------------------------------------


# --- documents ----------------------------------------------------------------------------------


def _snapshot(document: Document, actor: Actor, note: str = "") -> DocumentVersion:
    return DocumentVersion.objects.create(
        document=document,
        number=document.version,
        title=document.title,
        body_html=document.body_html,
        body_text=document.body_text,
        note=note[:300],
        created_by=person(actor),
    )


def document_create(
    *,
    actor: Actor,
    title: str,
    content: str = "",
    fmt: str = "markdown",
    folder: DocumentFolder | None = None,
    visibility: str = Visibility.WORKSPACE,
) -> Document:
    require(actor, DocumentsPerm.EDIT)
    body, text = clean_body(content, fmt)
    document = Document.objects.create(
        title=clean_title(title),
        folder=folder,
        owner=person(actor),
        created_by=person(actor),
        updated_by=person(actor),
        visibility=visibility,
        body_html=body,
        body_text=text,
        version=1,
    )
    _snapshot(document, actor, "created")
    logger.info("document %s created", document.pk)
    return document


@transaction.atomic  # all or nothing, and the lock below needs a transaction whoever calls
def document_update(
    *,
    actor: Actor,
    document: Document,
    title: str | None = None,
    content: str | None = None,
    fmt: str = "markdown",
    expected_version: int | None = None,
    note: str = "",
    append: bool = False,
) -> tuple[Document, bool]:
    """A new version with the changes (the previous ones stay); (document, whether it changed).
    `expected_version`: refuse if someone saved a newer version meanwhile. `append`: add the
    content at the end instead of replacing the body."""
    require(actor, DocumentsPerm.EDIT)
    # Locked: a second save waits for the first and builds on its version (an append keeps both).
    document = Document.objects.fetch(actor, document.pk, "change", lock=True)
    if expected_version is not None and expected_version != document.version:
        raise errors.VersionConflict(
            document=document.pk, version=document.version, expected=expected_version
        )
    new_title = clean_title(title) if title is not None else document.title
    body, text = document.body_html, document.body_text
    if content is not None:
        added, _text = clean_body(content, fmt)
        body, text = clean_body(document.body_html + added, "html") if append else (added, _text)
    if (new_title, body) == (document.title, document.body_html):
        return document, False
    document.title, document.body_html, document.body_text = new_title, body, text
    document.version += 1
    document.updated_by = person(actor)
    document.save(update_fields=["title", "body_html", "body_text", "version", "updated_by", "updated_at"])
    _snapshot(document, actor, note or "updated")
    logger.info("document %s saved as version %s", document.pk, document.version)
    return document, True


def document_move(*, actor: Actor, document: Document, folder: DocumentFolder | None) -> Document:
    require(actor, DocumentsPerm.EDIT)
    document = Document.objects.fetch(actor, document.pk, "change")
    document.folder = folder
    document.save(update_fields=["folder", "updated_at"])
    return document


def document_trash(*, actor: Actor, document: Document) -> Document:
    require(actor, DocumentsPerm.DELETE)
    document = Document.objects.fetch(actor, document.pk, "change")
    trees.trash([document], actor=actor)
    return document


def document_restore(*, actor: Actor, document: Document) -> Document:
    require(actor, DocumentsPerm.DELETE)
    if document.deleted_at is None:
        return document
    if document.folder is not None and document.folder.deleted_at is not None:
        document.folder = None
        document.save(update_fields=["folder"])
    trees.untrash(document)
    return document


# --- export -------------------------------------------------------------------------------------


def document_export_pdf(
    *,
    actor: Actor,
    document: Document,
    folder: Any = None,
    name: str | None = None,
    version: int | None = None,
) -> Any:
    """Renders the document (or one of its versions) to PDF, stores it in Files (in `folder`, a
    files folder, default "/Document exports") and attaches it to the document. Returns the file,
    private when the document is (`derived_visibility`)."""
    from apps.files import api as files

    require(actor, DocumentsPerm.EXPORT)
    if not files.may_add(actor):
        raise errors.ExportNotAllowed()
    source = selectors.version_get(document=document, number=version) if version else document
    data = pdf.render(
        title=source.title,
        body_html=source.body_html,
        version=version or document.version,
        updated_at=getattr(source, "created_at", None) or document.updated_at,
        author=getattr(document.owner, "email", "") if document.owner_id else "",
    )
    if folder is None:
        folder = files.folder_ensure(actor=actor, path=EXPORT_FOLDER)
    file = files.file_create(
        actor=actor,
        name=name or f"{trees.safe_name(source.title)[:230]} v{version or document.version}.pdf",
        content=data,
        folder=folder,
        mime_type="application/pdf",
        source=files.Source.EXPORT,
        origin=f"document {document.pk} v{version or document.version}",
        visibility=derived_visibility(document),
    )
    files.file_attach(actor=actor, file=file, record=document)
    logger.info("document %s exported to file %s", document.pk, file.pk)
    return file
