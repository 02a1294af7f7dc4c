"""The Email Inbox area of the catalogue (SPEC 4.7): thin doors onto the mail app's services and
selectors. Agents get text (HTML as Markdown, quoted history trimmed), never raw HTML."""

from datetime import datetime
from typing import Annotated, Literal

from django.db import connection, transaction
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.kit import open_tool
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import From, Limit, Offset, Out, Page, PersonRef, id_field, paginate
from apps.mail import content, selectors, services
from apps.mail.models import Draft, Mailbox, Message, Outgoing, Signature
from apps.mail.permissions import MailPerm

InboxId = Annotated[int, id_field("listInboxes")]
MessageId = Annotated[int, id_field("getInboxMessages")]
DraftId = Annotated[int, id_field("listDrafts")]
Address = Annotated[str, Field(max_length=320)]
Addresses = Annotated[list[Address], Field(max_length=50, description="E-mail addresses")]


class InboxOut(Out):
    id: int
    name: str
    address: str
    send_as: list[str] = Field(description="Aliases it may also send as")
    shared: bool
    owner: PersonRef | None
    status: str
    problem: str
    synced_at: datetime | None
    unread: int


class FolderOut(Out):
    id: int
    name: str
    role: str = Field(description="inbox, sent, drafts, trash, archive, junk or empty")
    total: int
    unread: int


class MessageSummary(Out):
    id: int
    thread_id: int | None
    folder: Annotated[str, From("folder.name")]
    subject: str
    sender: str
    to: list[str]
    date: datetime
    unread: bool
    snippet: str
    attachments: int


class AttachmentOut(Out):
    name: str
    type: str
    size: int


class MessageOut(Out):
    id: int
    inbox_id: Annotated[int, From("mailbox_id")]
    thread_id: int | None
    folder: Annotated[str, From("folder.name")]
    subject: str
    sender: str
    to: list[str]
    cc: list[str]
    date: datetime
    unread: bool
    text: str = Field(description="As Markdown; quoted history left out")
    quoted_trimmed: bool
    blocked_images: int = Field(description="Remote images removed")
    attachments: list[AttachmentOut]
    thread: list[MessageSummary] = Field(description="The other messages of its thread")


class FoundOut(Out):
    message: MessageOut | None
    others: list[MessageSummary] = Field(description="Further matches, newest first")


class DraftOut(Out):
    id: int
    inbox_id: Annotated[int, From("mailbox_id")]
    sender: Annotated[str, From("from_address")]
    to: list[str]
    cc: list[str]
    bcc: list[str]
    subject: str
    body: str
    reply_to_message_id: Annotated[int | None, From("reply_to_id")]
    attachment_file_ids: Annotated[list[int], From("attachments")] = Field(description="Files sent with it")
    version: int
    sent: bool
    server_copy: Literal["saved", "pending", "none"] = Field(
        description="In the mail server's Drafts folder; pending: not written yet, tried again each minute"
    )
    updated_at: datetime


class SentOut(Out):
    outgoing_id: Annotated[int, From("pk")]
    message_id: str = Field(description="Its Message-ID header")
    status: str
    recipients: int
    sent_at: datetime | None
    stored_in_sent: bool


class SignatureOut(Out):
    inbox_id: int
    text: str
    updated_at: datetime | None


class InboxesOut(Out):
    items: list[InboxOut]


class FoldersOut(Out):
    inbox_id: int
    items: list[FolderOut]


def _inbox(ctx: ToolContext, inbox_id: int) -> Mailbox:
    return Mailbox.objects.fetch(ctx.actor, inbox_id)


def _summary(message: Message) -> MessageSummary:
    return MessageSummary.of_record(message, attachments=len(message.attachments))


def _read(ctx: ToolContext, message: Message) -> MessageOut:
    text, trimmed = content.trim_quoted(message.text)
    others = selectors.thread_messages(actor=ctx.actor, message=message)
    return MessageOut.of_record(
        message,
        text=text,
        quoted_trimmed=trimmed,
        attachments=[AttachmentOut.model_validate(item) for item in message.attachments],
        thread=[_summary(other) for other in others],
    )


def _server_copy(draft: Draft) -> str:
    if draft.server_pending:
        return "pending"
    return "saved" if draft.server_uid is not None else "none"


def _draft(draft: Draft) -> DraftOut:
    answer = DraftOut.of_record(draft, sent=draft.sent_at is not None, server_copy=_server_copy(draft))
    _told_after_commit(answer, draft)
    return answer


def _told_after_commit(answer: "DraftOut | DeletedDraftOut", draft: Draft) -> None:
    """A draft's server copy is written after the call's commit (apps.mail.drafts), which comes
    before its answer is sent: "pending" until then, the answer then says how it went. A call
    that rolls back drops this hook with the others, so it never says "saved" of nothing."""
    if answer.server_copy == "pending" and connection.in_atomic_block:
        transaction.on_commit(lambda: setattr(answer, "server_copy", _server_copy(draft)))


def _sent(row: Outgoing) -> SentOut:
    return SentOut.of_record(row, recipients=len(row.recipients))


@tool("listInboxes", permission=MailPerm.VIEW, title="List mailboxes", read_only=True)
def list_inboxes(ctx: ToolContext) -> InboxesOut:
    """List the mailboxes you may use (yours and shared ones you belong to), with unread counts."""
    unread = selectors.unread_in_inbox(actor=ctx.actor)
    rows = Mailbox.objects.restrict(ctx.actor).select_related("owner")[:100]
    return InboxesOut(
        items=[InboxOut.of_record(mailbox, unread=unread.get(mailbox.pk, 0)) for mailbox in rows]
    )


@tool("getInboxFolders", permission=MailPerm.VIEW, title="List a mailbox's folders", read_only=True)
def get_inbox_folders(ctx: ToolContext, *, inbox_id: InboxId) -> FoldersOut:
    """List a mailbox's folders with their role (inbox, sent, drafts...) and message counts."""
    mailbox = _inbox(ctx, inbox_id)
    folders = selectors.folders_counted(mailbox=mailbox)
    return FoldersOut(inbox_id=mailbox.pk, items=[FolderOut.of_record(folder) for folder in folders])


@tool("getInboxMessages", permission=MailPerm.VIEW, title="List messages of a folder", read_only=True)
def get_inbox_messages(
    ctx: ToolContext,
    *,
    inbox_id: InboxId,
    folder: Annotated[
        str, Field(max_length=500, description="A role (inbox, sent...) or folder name")
    ] = "inbox",
    unread_only: Annotated[bool, Field(description="Leave out read ones")] = False,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[MessageSummary]:
    """List the messages of a mailbox folder, newest first; findAndReadEmail reads one."""
    mailbox = _inbox(ctx, inbox_id)
    chosen = selectors.folder_named(mailbox=mailbox, name=folder)
    rows = Message.objects.restrict(ctx.actor).filter(folder=chosen).select_related("folder")
    if unread_only:
        rows = rows.exclude(flags__contains=["\\Seen"])
    return paginate(rows.order_by("-date", "-id"), limit=limit, offset=offset, item=_summary)


@tool("findAndReadEmail", permission=MailPerm.VIEW, title="Find and read an e-mail", read_only=True)
def find_and_read_email(
    ctx: ToolContext,
    *,
    message_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="From getInboxMessages")] = None,
    query: Annotated[str, Field(max_length=200, description="Words of the subject, text or sender")] = "",
    sender: Annotated[str, Field(max_length=320, description="From this address")] = "",
    inbox_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="Only this mailbox")] = None,
) -> FoundOut:
    """Find an e-mail by id or by words and sender, and read it as text with its thread (marked read)."""
    if message_id is not None:
        message = Message.objects.select_related("folder", "mailbox").fetch(ctx.actor, message_id)
        _opened(ctx, message)
        return FoundOut(message=_read(ctx, message), others=[])
    found = selectors.message_search(actor=ctx.actor, query=query, sender=sender, mailbox_id=inbox_id)
    rows = list(found.select_related("mailbox")[:6])
    if not rows:
        return FoundOut(message=None, others=[])
    _opened(ctx, rows[0])
    return FoundOut(message=_read(ctx, rows[0]), others=[_summary(row) for row in rows[1:]])


def _opened(ctx: ToolContext, message: Message) -> None:
    """Marks a message read, as a mail client does, for whom may change it; a read-only credential
    or a role that may only look leaves it as it was (the tool is declared read-only)."""
    if ctx.may_write and Message.objects.restrict(ctx.actor, "change").filter(pk=message.pk).exists():
        services.message_opened(message=message)


class ManagedOut(Out):
    changed: int = Field(description="Messages whose state or folder changed")
    items: list[MessageSummary] = Field(description="The messages as they are now")


@tool("manageEmail", permission=MailPerm.EDIT, title="Mark, archive, move or trash e-mails", idempotent=True)
def manage_email(
    ctx: ToolContext,
    *,
    message_ids: Annotated[
        list[MessageId], Field(min_length=1, max_length=100, description="From getInboxMessages")
    ],
    action: Annotated[
        Literal["read", "unread", "flag", "unflag", "archive", "trash", "move"],
        Field(description="trash: to the Trash folder, restorable with move"),
    ],
    folder: Annotated[str, Field(max_length=500, description="For move: a role or folder name")] = "",
) -> ManagedOut:
    """Mark e-mails read or unread, flag them, or archive, trash or move them, on the mail server."""
    # Each message once: an id given twice is one message, changed (and counted) once.
    rows = [
        Message.objects.select_related("folder", "mailbox").fetch(ctx.actor, pk, "change")
        for pk in dict.fromkeys(message_ids)
    ]
    changed = services.messages_organize(actor=ctx.actor, messages=rows, action=action, folder=folder)
    now = Message.objects.restrict(ctx.actor).filter(pk__in=message_ids).select_related("folder")
    return ManagedOut(changed=changed, items=[_summary(row) for row in now.order_by("-date", "-id")])


def _folders_changed_by(ctx: ToolContext, mailbox: Mailbox) -> None:
    """Its folders are changed by whom its messages are (the mailbox's owner, not its members nor
    the administrators who connect it): ReadOnly to anyone else who sees it."""
    if not selectors.folders_changeable(actor=ctx.actor, mailbox=mailbox):
        raise Mailbox.access.read_only(Mailbox, mailbox.pk)


@tool("manageInboxFolder", permission=MailPerm.EDIT, title="Create, rename or delete a mail folder")
def manage_inbox_folder(
    ctx: ToolContext,
    *,
    inbox_id: InboxId,
    action: Annotated[Literal["create", "rename", "delete"], Field(description="delete: an empty one")],
    name: Annotated[
        str, Field(min_length=1, max_length=200, description="The folder; to create, its name (a/b nests)")
    ],
    new_name: Annotated[str, Field(max_length=200, description="rename: to this")] = "",
) -> FoldersOut:
    """Create, rename or delete a mailbox folder (a label) on the mail server; manageEmail puts mail in."""
    mailbox = _inbox(ctx, inbox_id)
    _folders_changed_by(ctx, mailbox)
    if action == "create":
        services.folder_create(actor=ctx.actor, mailbox=mailbox, name=name)
    else:
        folder = selectors.folder_named(mailbox=mailbox, name=name)
        folder.mailbox = mailbox
        if action == "rename":
            services.folder_rename(actor=ctx.actor, folder=folder, new_name=new_name)
        else:
            services.folder_delete(actor=ctx.actor, folder=folder)
    folders = selectors.folders_counted(mailbox=mailbox)
    return FoldersOut(inbox_id=mailbox.pk, items=[FolderOut.of_record(folder) for folder in folders])


@tool(
    "forwardEmail",
    permission=MailPerm.SEND,
    title="Forward an e-mail",
    markers=Marker.HIGH_RISK,
    open_world=True,
)
def forward_email(
    ctx: ToolContext,
    *,
    message_id: MessageId,
    to: Annotated[list[Address], Field(min_length=1, max_length=50, description="E-mail addresses")],
    note: Annotated[str, Field(max_length=20_000, description="Your text above it")] = "",
    as_attachment: Annotated[bool, Field(description="Attach it whole instead of inline")] = False,
) -> SentOut:
    """Forward an e-mail to other people, inline or attached; it is stored in Sent."""
    message = Message.objects.select_related("folder", "mailbox").fetch(ctx.actor, message_id)
    row = services.message_forward(
        actor=ctx.actor, message=message, to=to, note=note, as_attachment=as_attachment
    )
    return _sent(row)


@tool(
    "resendEmail",
    permission=MailPerm.SEND,
    title="Resend an e-mail",
    markers=Marker.HIGH_RISK,
    open_world=True,
)
def resend_email(
    ctx: ToolContext,
    *,
    message_id: MessageId,
    to: Annotated[list[Address], Field(max_length=50, description="Default: its recipients")] = [],  # noqa: B006
) -> SentOut:
    """Send a message the mailbox sent once more, unchanged but with a new Message-ID and Date."""
    message = Message.objects.select_related("folder", "mailbox").fetch(ctx.actor, message_id)
    return _sent(services.message_resend(actor=ctx.actor, message=message, to=to or None))


@tool(
    "sendEmail",
    permission=MailPerm.SEND,
    title="Send an e-mail draft",
    markers=Marker.HIGH_RISK,
    open_world=True,
)
def send_email(ctx: ToolContext, *, draft_id: DraftId) -> SentOut:
    """Send a draft written with updateDraft (new, reply, with Cc), once; Deals' twin is sendDraft."""
    draft = Draft.objects.select_related("mailbox", "reply_to").fetch(ctx.actor, draft_id)
    return _sent(services.draft_send(actor=ctx.actor, draft=draft))


@tool("listDrafts", permission=MailPerm.VIEW, title="List drafts", read_only=True)
def list_drafts(
    ctx: ToolContext,
    *,
    inbox_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="Only this mailbox")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[DraftOut]:
    """List the unsent drafts of your mailboxes, last changed first."""
    rows = Draft.objects.restrict(ctx.actor).filter(sent_at__isnull=True)
    if inbox_id is not None:
        rows = rows.filter(mailbox=_inbox(ctx, inbox_id))
    return paginate(rows.order_by("-updated_at", "-id"), limit=limit, offset=offset, item=_draft)


@tool("getDraft", permission=MailPerm.VIEW, title="Read a draft", read_only=True)
def get_draft(ctx: ToolContext, *, draft_id: DraftId) -> DraftOut:
    """Read a draft: its recipients, subject and text."""
    return _draft(Draft.objects.fetch(ctx.actor, draft_id))


class DeletedDraftOut(Out):
    id: int
    subject: str
    in_trash: bool = Field(description="Restorable on the Mail page")
    server_copy: Literal["saved", "pending", "none"] = Field(description="As in getDraft")


@tool("deleteDraft", permission=MailPerm.DELETE, title="Delete a draft", markers=Marker.DESTRUCTIVE)
def delete_draft(ctx: ToolContext, *, draft_id: DraftId) -> DeletedDraftOut:
    """Put an unsent draft in the trash; it can be restored on the Mail page."""
    draft = Draft.objects.fetch(ctx.actor, draft_id, "delete")
    services.draft_trash(actor=ctx.actor, draft=draft)
    answer = DeletedDraftOut.of_record(draft, server_copy=_server_copy(draft))
    _told_after_commit(answer, draft)
    return answer


@tool("updateDraft", permission=MailPerm.EDIT, title="Write or change a draft")
def update_draft(
    ctx: ToolContext,
    *,
    draft_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="None: a new draft")] = None,
    inbox_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="For a new draft")] = None,
    reply_to_message_id: Annotated[int | None, Field(ge=1, le=2**63 - 1, description="Answer it")] = None,
    to: Addresses | None = None,
    cc: Addresses | None = None,
    bcc: Addresses | None = None,
    subject: Annotated[str | None, Field(max_length=998, description="Default for a reply: Re: ...")] = None,
    body: Annotated[str | None, Field(max_length=200_000, description="Plain text; signature added")] = None,
    sender: Annotated[str | None, Field(max_length=320, description="From: an alias of the mailbox")] = None,
    attachment_file_ids: Annotated[
        list[Annotated[int, Field(ge=1, le=2**63 - 1)]] | None,
        Field(max_length=10, description="Files to attach, from listFiles; replaces them, [] for none"),
    ] = None,
) -> DraftOut:
    """Write a new e-mail draft (or a reply) or change one; given fields replace the stored ones."""
    reply = None
    if reply_to_message_id is not None:
        reply = Message.objects.select_related("mailbox").fetch(ctx.actor, reply_to_message_id)
    mailbox = _inbox(ctx, inbox_id) if inbox_id is not None else None
    if draft_id is not None:
        draft = Draft.objects.select_related("mailbox").fetch(ctx.actor, draft_id, "change")
    else:
        draft = None
        if mailbox is None:
            mailbox = reply.mailbox if reply is not None else selectors.default_mailbox(actor=ctx.actor)
    saved = services.draft_save(
        actor=ctx.actor,
        mailbox=mailbox,
        draft=draft,
        to=to,
        cc=cc,
        bcc=bcc,
        subject=subject,
        body=body,
        reply_to=reply if reply_to_message_id is not None else services.UNSET,
        from_address=sender,
        attachments=attachment_file_ids,
    )
    return _draft(saved)


@tool("getEmailSignature", permission=MailPerm.VIEW, title="Get your e-mail signature", read_only=True)
def get_email_signature(ctx: ToolContext, *, inbox_id: InboxId) -> SignatureOut:
    """Get your signature in a mailbox (added once, above quoted text, to what you send)."""
    mailbox = _inbox(ctx, inbox_id)
    found: Signature | None = services.signature_of(actor=ctx.actor, mailbox=mailbox)
    return SignatureOut(
        inbox_id=mailbox.pk, text=found.text if found else "", updated_at=found.updated_at if found else None
    )


@tool("updateEmailSignature", permission=MailPerm.EDIT, title="Set your e-mail signature", idempotent=True)
def update_email_signature(
    ctx: ToolContext,
    *,
    inbox_id: InboxId,
    text: Annotated[str, Field(max_length=5_000, description="Plain text; empty: none")],
) -> SignatureOut:
    """Set your signature in a mailbox; empty text removes it."""
    mailbox = _inbox(ctx, inbox_id)
    found = services.signature_set(actor=ctx.actor, mailbox=mailbox, text=text)
    return SignatureOut(inbox_id=mailbox.pk, text=found.text, updated_at=found.updated_at)


open_tool(
    "openInboxSettings",
    permission=MailPerm.VIEW,
    title="Open the mail settings",
    description="Link to the Mail page: mailboxes, their servers and passwords, members, drafts.",
    page="mail:settings",
)
