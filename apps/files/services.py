"""Writes about files and folders. Each checks the actor's permission itself (every door goes
through here: tools, pages, other areas) and logs ids only, never names.

The API other areas call (docs/files.md):

    file = services.file_create(actor=user, name="report.txt", content=b"...", folder=None)
    data = services.file_bytes(file)            # the bytes
    text = services.file_text(file)             # the extracted text (cached)
    folder = services.folder_ensure(actor=user, path="/Reports/2026")
    services.file_attach(actor=user, file=file, record=document)  # listed with the record

Bytes and rows stay together (apps.files.blobs): a failure anywhere in the caller's transaction
removes the bytes written in it.
"""

import logging
import os
from typing import Any, Literal, cast

from django.conf import settings
from django.core.validators import validate_email
from django.db.models import Q
from django.utils import timezone

from apps.accounts.models import person
from apps.core import folders as trees
from apps.core.actors import Actor, require
from apps.core.errors import AppError, EmailNotSent
from apps.core.kinds import Item, attachments
from apps.core.observability import describe_error
from apps.core.records import Visibility, derived_visibility
from apps.files import blobs, errors, extract
from apps.files.models import Delivery, File, Folder
from apps.files.permissions import FilesPerm
from apps.mail import api as mail

logger = logging.getLogger(__name__)

MAX_RECIPIENTS = 20


# --- names --------------------------------------------------------------------------------------


def _siblings(folder: Folder | None, *, visibility: str, owner_id: Any) -> Any:
    """The files whose names a file in `folder` must differ from: the workspace's, and for a
    private file its owner's private ones too. Someone else's private file takes no name from
    anyone: a name refused or changed because of it would tell that it is there."""
    rows = File.objects.filter(folder=folder)
    mine = Q(visibility=Visibility.PRIVATE, owner_id=owner_id)
    if visibility == Visibility.PRIVATE:
        return rows.filter(Q(visibility=Visibility.WORKSPACE) | mine)
    return rows.filter(visibility=Visibility.WORKSPACE)


def name_scope(file: File) -> dict[str, Any]:
    """Whose names the file's must differ from (`_siblings`), as keywords of `free_name`."""
    return {"visibility": file.visibility, "owner_id": file.owner_id}


def free_name(
    folder: Folder | None, name: str, *, visibility: str, owner_id: Any, exclude_pk: Any = None
) -> str:
    """`name`, or "name (2).ext", "name (3).ext"… whichever the folder's files it must differ
    from (`_siblings`) do not have."""
    taken = {
        value.lower()
        for value in _siblings(folder, visibility=visibility, owner_id=owner_id)
        .filter(deleted_at__isnull=True)
        .exclude(pk=exclude_pk)
        .values_list("name", flat=True)
    }
    if name.lower() not in taken:
        return name
    stem, ext = os.path.splitext(name)
    for number in range(2, 10_000):
        mark = f" ({number})"
        # A long name gives up the end of its stem (or of itself) to the number, within MAX_NAME.
        keep = trees.MAX_NAME - len(mark) - len(ext)
        candidate = (
            stem[:keep].rstrip() + mark + ext if keep > 0 else name[: trees.MAX_NAME - len(mark)] + mark
        )
        if candidate.lower() not in taken:
            return candidate
    raise errors.NoFreeName(details={"name": ["taken"]})


def _placed_name(
    folder: Folder | None,
    name: str,
    if_exists: str,
    *,
    visibility: str,
    owner_id: Any,
    exclude_pk: Any = None,
) -> str:
    name = trees.clean_name(name)
    scope = {"visibility": visibility, "owner_id": owner_id}
    if if_exists == "rename":
        return free_name(folder, name, exclude_pk=exclude_pk, **scope)
    trees.check_name_free(_siblings(folder, **scope), name, exclude_pk=exclude_pk, what="A file")
    return name


# --- folders ------------------------------------------------------------------------------------


def folder_ensure(*, actor: Any, path: str) -> Folder | None:
    """The folder at "/A/B", created (with its parents) where missing; "/" is the root."""
    folder = None
    for part in [part for part in path.split("/") if part.strip()]:
        name = trees.clean_name(part)
        existing = Folder.objects.filter(parent=folder, name__iexact=name, deleted_at__isnull=True).first()
        folder = existing or trees.create(Folder, actor=actor, name=name, parent=folder)
    return folder


def folder_rename(*, actor: Actor, folder: Folder, name: str) -> Folder:
    require(actor, FilesPerm.EDIT)
    name = trees.clean_name(name)
    trees.check_name_free(
        Folder.objects.filter(parent=folder.parent_id), name, exclude_pk=folder.pk, what="A folder"
    )
    folder.name = name
    folder.save(update_fields=["name", "updated_at"])
    return folder


def folder_move(*, actor: Actor, folder: Folder, parent: Folder | None) -> Folder:
    require(actor, FilesPerm.EDIT)
    trees.check_move(folder, parent)
    trees.check_name_free(
        Folder.objects.filter(parent=parent), folder.name, exclude_pk=folder.pk, what="A folder"
    )
    folder.parent = parent
    folder.save(update_fields=["parent", "updated_at"])
    return folder


def _keep_out(actor: Actor, files: Any) -> Any:
    """The files the actor may delete among `files`; the others (someone's private file the
    actor does not see, or sees without changing) leave the folder that goes, for the root,
    renamed if their name is taken there: they stay their owners', where they were (live or in
    the trash), and are neither counted nor named to the actor."""
    mine = File.objects.restrict(actor, "delete", trash="include").values("pk")
    for file in files.exclude(pk__in=mine):
        file.folder = None
        file.trashed_with = None
        if file.deleted_at is None:
            file.name = free_name(None, file.name, exclude_pk=file.pk, **name_scope(file))
        file.save(update_fields=["folder", "trashed_with", "name", "updated_at"])
        logger.info("file %s kept out of a folder deleted by %s", file.pk, getattr(actor, "pk", None))
    return files.filter(pk__in=mine)


def folder_trash(*, actor: Actor, folder: Folder) -> int:
    """Puts the folder and everything in it in the trash; returns how many items went. Files the
    actor may not delete stay their owners' (`_keep_out`)."""
    require(actor, FilesPerm.DELETE)
    below = trees.descendant_ids(Folder, [folder.pk])
    inner = Folder.objects.filter(pk__in=below, deleted_at__isnull=True)
    files = _keep_out(actor, File.objects.filter(folder_id__in=[folder.pk, *below], deleted_at__isnull=True))
    count = trees.trash([folder], actor=actor)
    count += trees.trash(inner, actor=actor, with_folder=folder)
    count += trees.trash(files, actor=actor, with_folder=folder)
    logger.info("folder %s trashed with %s items", folder.pk, count - 1)
    return count


def folder_restore(*, actor: Actor, folder: Folder, parent: Folder | Literal[False] | None = False) -> int:
    """Brings a trashed folder back with what was trashed with it; returns how many of those
    items the actor sees. `parent`: where to (False: where it was, which must not be in the trash
    itself)."""
    require(actor, FilesPerm.DELETE)
    if folder.deleted_at is None:
        raise errors.FolderNotInTrash(folder=folder.pk)
    if folder.trashed_with_id is not None:
        raise errors.FolderTrashedWithAnother(folder=folder.pk, parent=folder.trashed_with_id)
    # A Folder's parent is a Folder (django-stubs types FolderBase's "self" as FolderBase).
    target = cast(Folder | None, folder.parent) if parent is False else parent
    _check_restorable_into(target, original=parent is False)
    if parent is not False:
        trees.check_move(folder, target)
    trees.check_name_free(
        Folder.objects.filter(parent=target), folder.name, exclude_pk=folder.pk, what="A folder"
    )
    folder.parent = target
    trees.untrash(folder, also=("parent",))
    count = 1
    for inner in Folder.objects.filter(trashed_with=folder):
        trees.untrash(inner)
        count += 1
    seen = set(
        File.objects.restrict(actor, trash="include").filter(trashed_with=folder).values_list("pk", flat=True)
    )
    for file in File.objects.filter(trashed_with=folder):
        file.name = free_name(file.folder, file.name, exclude_pk=file.pk, **name_scope(file))
        trees.untrash(file, also=("name",))
        # Every file that went comes back; the count names only those the actor sees.
        count += file.pk in seen
    return count


def _check_restorable_into(target: Folder | None, *, original: bool) -> None:
    if target is None or target.deleted_at is None:
        return
    if not original:
        raise Folder.access.in_trash(Folder, target.pk)
    raise errors.OriginalFolderInTrash(
        folder=target.pk, details={"into_folder_id": ["the original folder is in the trash"]}
    )


def folder_erase(*, actor: Actor, folder: Folder) -> int:
    """Erases a trashed folder for good, with everything in it; returns how many files went.
    Files the actor may not delete are kept (`_keep_out`)."""
    require(actor, FilesPerm.DELETE)
    if folder.deleted_at is None:
        raise errors.FolderToEraseNotInTrash(folder=folder.pk)
    ids = [folder.pk, *trees.descendant_ids(Folder, [folder.pk])]
    files = list(_keep_out(actor, File.objects.filter(folder_id__in=ids)))
    erase_rows(files)
    Folder.objects.filter(pk__in=ids).delete()
    return len(files)


# --- files --------------------------------------------------------------------------------------


def file_create(
    *,
    actor: Actor,
    name: str,
    content: bytes,
    folder: Folder | None = None,
    mime_type: str | None = None,
    description: str = "",
    source: str = File.Source.UPLOAD,
    origin: str = "",
    visibility: str = Visibility.WORKSPACE,
    if_exists: str = "rename",
) -> File:
    """A new file from bytes in `folder` (None: the root). `if_exists`: "rename" gives it a free
    name ("a (2).txt"), "error" refuses a name that is taken."""
    require(actor, FilesPerm.EDIT)
    if folder is not None and folder.deleted_at is not None:
        raise Folder.access.in_trash(Folder, folder.pk)
    owner = person(actor)
    placed = _placed_name(folder, name, if_exists, visibility=visibility, owner_id=getattr(owner, "pk", None))
    blobs.check_size(len(content))
    kind = (mime_type or "").strip().lower() or extract.guess_type(placed, content)
    key, digest = blobs.write(content)
    file = File.objects.create(
        name=placed,
        folder=folder,
        owner=owner,
        created_by=owner,
        visibility=visibility,
        description=description[:500],
        blob=key,
        size=len(content),
        mime_type=kind[:150],
        sha256=digest,
        source=source,
        origin=origin[:200],
    )
    logger.info("file %s created (%s bytes)", file.pk, file.size)
    return file


def file_bytes(file: File) -> bytes:
    return blobs.read(file.blob)


def file_text(file: File) -> str:
    """The file's text (apps.files.extract), extracted once and kept on the row."""
    if file.text is None:
        file.text = extract.text_of(file_bytes(file), file.mime_type)
        File.objects.filter(pk=file.pk).update(text=file.text)
    return file.text


def file_copy(*, actor: Actor, file: File, folder: Folder | None, name: str | None = None) -> File:
    """A copy of the file, the actor's, no more visible than the file (`derived_visibility`)."""
    require(actor, FilesPerm.EDIT)
    return file_create(
        actor=actor,
        name=name or file.name,
        content=file_bytes(file),
        folder=folder,
        mime_type=file.mime_type,
        description=file.description,
        source=File.Source.COPY,
        origin=f"file {file.pk}",
        visibility=derived_visibility(file),
        if_exists="rename" if name is None else "error",
    )


def file_attach(*, actor: Actor, file: File, record: Any) -> bool:
    """Attaches the file to a record of another area that the caller holds (and may change);
    True if it was not attached yet."""
    require(actor, FilesPerm.EDIT)
    return attachments.attach_to(
        actor=actor, record=record, item_kind="file", item_id=file.pk, item=Item(file.pk, file.name)
    )


def file_move(*, actor: Actor, file: File, folder: Folder | None) -> File:
    require(actor, FilesPerm.EDIT)
    file = File.objects.fetch(actor, file.pk, "change")
    if folder is not None and folder.deleted_at is not None:
        raise Folder.access.in_trash(Folder, folder.pk)
    trees.check_name_free(_siblings(folder, **name_scope(file)), file.name, exclude_pk=file.pk, what="A file")
    file.folder = folder
    file.save(update_fields=["folder", "updated_at"])
    return file


def file_rename(*, actor: Actor, file: File, name: str) -> File:
    require(actor, FilesPerm.EDIT)
    file = File.objects.fetch(actor, file.pk, "change")
    file.name = _placed_name(file.folder, name, "error", exclude_pk=file.pk, **name_scope(file))
    file.save(update_fields=["name", "updated_at"])
    return file


def file_trash(*, actor: Actor, file: File) -> None:
    require(actor, FilesPerm.DELETE)
    file = File.objects.fetch(actor, file.pk, "delete", trash=True)
    trees.trash([file], actor=actor)


def file_restore(*, actor: Actor, file: File, folder: Folder | Literal[False] | None = False) -> File:
    """Brings a trashed file back, where it was (or into `folder`), renamed if its name is taken."""
    require(actor, FilesPerm.DELETE)
    file = File.objects.select_related("folder").fetch(actor, file.pk, "delete", trash=True)
    if file.deleted_at is None:
        raise errors.FileNotInTrash(file=file.pk)
    target = file.folder if folder is False else folder
    _check_restorable_into(target, original=folder is False)
    file.folder = target
    file.name = free_name(target, file.name, exclude_pk=file.pk, **name_scope(file))
    trees.untrash(file, also=("folder", "name"))
    return file


def file_erase(*, actor: Actor, file: File) -> None:
    require(actor, FilesPerm.DELETE)
    file = File.objects.fetch(actor, file.pk, "delete", trash=True)
    if file.deleted_at is None:
        raise errors.FileToEraseNotInTrash(file=file.pk)
    erase_rows([file])


def erase_rows(files: list[File]) -> None:
    """Deletes file rows with every link to them (wherever a record keeps it), and their bytes
    after commit."""
    keys = [file.blob for file in files]
    ids = [file.pk for file in files]
    attachments.forget(item_kind="file", item_ids=ids)
    File.objects.filter(pk__in=ids).delete()
    blobs.remove_after_commit(keys)
    logger.info("files %s erased", ids)


# --- sending ------------------------------------------------------------------------------------


def clean_recipients(addresses: list[str]) -> list[str]:
    cleaned: list[str] = []
    for address in addresses:
        value = address.strip().lower()
        try:
            validate_email(value)
        except Exception as error:
            raise errors.NotAnAddress(address=address, details={"to": ["not an e-mail address"]}) from error
        if value not in cleaned:
            cleaned.append(value)
    if not cleaned:
        raise errors.NoRecipient(details={"to": ["empty"]})
    if len(cleaned) > MAX_RECIPIENTS:
        raise errors.TooManyRecipients(most=MAX_RECIPIENTS, details={"to": ["too many"]})
    return cleaned


def file_email(*, actor: Actor, file: File, to: list[str], subject: str, message: str) -> Delivery:
    """Sends the file as an e-mail attachment through the mail app (apps.mail.api.send): from the
    person's own mailbox when the Email Inbox area is installed (sent once, kept in their Sent
    folder), otherwise from the service's address, replies going to the person."""
    require(actor, FilesPerm.EMAIL)
    recipients = clean_recipients(to)
    limit = int(settings.ATRIUM_FILES_EMAIL_MAX_BYTES)
    if file.size > limit:
        raise errors.TooLargeToEmail(
            file=file.pk,
            size=blobs.human_size(file.size),
            limit=blobs.human_size(limit),
            details={"file_id": ["too large to e-mail"]},
        )
    subject = " ".join(subject.split())[:200] or file.name
    notice = mail.Notice(
        to=recipients,
        subject=subject,
        text=message or f"{file.name} is attached.",
        reply_to=getattr(actor, "email", "") or "",
        attachments=(mail.Attachment(file.name, file_bytes(file), file.mime_type),),
    )
    delivery = Delivery.objects.create(
        file=file, sent_by=person(actor), recipients=recipients, subject=subject
    )
    try:
        mail.send([notice], sender=actor)
    except AppError:
        raise  # the mail app's own, from the person's mailbox: it names the problem
    except Exception as error:
        # By its class: an SMTP refusal quotes the addresses it refused.
        logger.warning("e-mail of file %s failed: %s", file.pk, describe_error(error))
        raise EmailNotSent(reason=type(error).__name__) from error
    logger.info("file %s e-mailed to %s recipients", file.pk, len(recipients))
    return delivery


# --- the trash ----------------------------------------------------------------------------------


def trash_entries(*, actor: Actor) -> list[Any]:
    """What is in the trash on its own (not taken there with a folder), newest first."""
    folders = list(Folder.objects.restrict(actor, trash="only").filter(trashed_with__isnull=True))
    files = list(
        File.objects.restrict(actor, trash="only")
        .filter(Q(trashed_with__isnull=True))
        .select_related("folder", "deleted_by")
    )
    entries = folders + files
    entries.sort(key=lambda item: (item.deleted_at or timezone.now(), item.pk), reverse=True)
    return entries
