"""Mail: mailboxes on IMAP and SMTP servers, their folders, messages and threads, drafts,
signatures and the outbox. Workspace schema. The one mail app of every area (Email Inbox, Deals,
Customer Service, Contacts, Group Accounts, Files): their tools are doors onto its services.

Who sees what: a mailbox is its owner's, and a shared mailbox also its members' (`members`);
nobody else sees it or anything in it, the area's admins included: they change every mailbox
(`changes_all`: connect it, choose its members, repair its login on the Mail page, which shows no
mail) without seeing its mail. Folders, threads, messages, drafts, signatures and outbox rows
follow their mailbox (`through="mailbox"`); a shared mailbox's members also triage its messages.

Messages are a copy of the server's (apps.mail.sync keeps it, by UID from a cursor per folder);
the server stays the truth. Bodies are stored sanitised (apps.mail.content): `html` through nh3
with remote images removed, `text` the plain text (or the HTML as Markdown).

Another area's record owns a thread by pointing at it (a deal, a ticket: a foreign key to Thread),
so a customer's reply, threaded here by Message-ID / In-Reply-To / References, reaches it.
"""

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.core.records import Access, Record, RecordQuerySet, live_once
from apps.mail.errors import DraftOfAnother
from apps.mail.permissions import MailPerm

USER = settings.AUTH_USER_MODEL


class Mailbox(Record):
    """An e-mail account: an address, the servers it is read from (IMAP) and sent through (SMTP
    submission), and its credentials, encrypted (apps.core.encryption)."""

    class Server(models.TextChoices):
        LOCAL = "local", _("the local mail server")
        IMAP = "imap", _("an IMAP and SMTP server")

    class Security(models.TextChoices):
        TLS = "tls", _("TLS")
        STARTTLS = "starttls", _("STARTTLS")
        NONE = "none", _("none (loopback only)")

    class Status(models.TextChoices):
        NEW = "new", _("not synchronised yet")
        OK = "ok", _("working")
        FAILING = "failing", _("failing")

    access = Access(
        MailPerm,
        visibility="owner",
        also="memberships__user",
        admins=False,
        changes_all=(MailPerm.ADMIN,),
        label=_("Mailbox"),
        find_with="listInboxes",
        trash_hint=_("An administrator can reconnect it on the Mail page."),
    )

    name = models.CharField(_("name"), max_length=100)
    address = models.EmailField(_("address"), max_length=254)
    # Further addresses it may send as (aliases), lower case.
    send_as = models.JSONField(_("also sends as"), default=list, blank=True)
    owner = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    shared = models.BooleanField(_("shared"), default=False)
    members: "models.ManyToManyField[Any, Any]" = models.ManyToManyField(
        USER, through="MailboxMember", related_name="+", blank=True
    )
    server = models.CharField(_("server"), max_length=10, choices=Server.choices, default=Server.LOCAL)
    imap_host = models.CharField(_("IMAP host"), max_length=255, blank=True)
    imap_port = models.PositiveIntegerField(_("IMAP port"), default=993)
    imap_security = models.CharField(max_length=10, choices=Security.choices, default=Security.TLS)
    smtp_host = models.CharField(_("SMTP host"), max_length=255, blank=True)
    smtp_port = models.PositiveIntegerField(_("SMTP port"), default=587)
    smtp_security = models.CharField(max_length=10, choices=Security.choices, default=Security.STARTTLS)
    username = models.CharField(_("user name"), max_length=254, blank=True)
    secret = models.TextField(blank=True)  # the password, Fernet-encrypted; empty on the local server
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.NEW)
    # What failed last (a class of problem, never an address or a server's words about one).
    problem = models.CharField(max_length=300, blank=True)
    synced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("mailbox")
        verbose_name_plural = _("mailboxes")
        constraints = [live_once("mail_mailbox_address_once", "address")]

    def __str__(self) -> str:
        return self.name

    def may_send_as(self, address: str) -> bool:
        return address.lower() in {self.address.lower(), *(a.lower() for a in self.send_as)}


class MailboxMember(models.Model):
    mailbox = models.ForeignKey(Mailbox, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["mailbox", "user"], name="mail_member_once")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.mailbox_id}"


class Folder(models.Model):
    """A folder of the server (an IMAP mailbox), with its SPECIAL-USE role (RFC 6154) and the
    sync cursor: UIDVALIDITY and the next UID not yet copied."""

    class Role(models.TextChoices):
        INBOX = "inbox", _("Inbox")
        SENT = "sent", _("Sent")
        DRAFTS = "drafts", _("Drafts")
        TRASH = "trash", _("Trash")
        ARCHIVE = "archive", _("Archive")
        JUNK = "junk", _("Junk")
        OTHER = "", _("Other")

    access = Access(MailPerm, through="mailbox", admins=False, label=_("Folder"), find_with="getInboxFolders")

    mailbox = models.ForeignKey(Mailbox, on_delete=models.CASCADE, related_name="folders")
    name = models.CharField(max_length=500)
    role = models.CharField(max_length=10, choices=Role.choices, blank=True)
    uidvalidity = models.BigIntegerField(null=True, blank=True)
    uidnext = models.BigIntegerField(default=1)
    synced_at = models.DateTimeField(null=True, blank=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["mailbox", "name"]
        constraints = [models.UniqueConstraint(fields=["mailbox", "name"], name="mail_folder_once")]

    def __str__(self) -> str:
        return self.name


class Thread(models.Model):
    """Messages of one conversation in one mailbox (by Message-ID, In-Reply-To and References)."""

    access = Access(
        MailPerm, through="mailbox", admins=False, label=_("Thread"), find_with="getInboxMessages"
    )

    mailbox = models.ForeignKey(Mailbox, on_delete=models.CASCADE, related_name="threads")
    subject = models.TextField(blank=True)
    last_message_at = models.DateTimeField(default=timezone.now)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-last_message_at", "-id"]

    def __str__(self) -> str:
        return f"thread {self.pk}"


class Message(models.Model):
    access = Access(
        MailPerm,
        through="mailbox",
        # A shared mailbox's members triage its mail (read, flag, archive, move) as its owner
        # does; its folders and its settings stay the owner's.
        owner=("mailbox__owner", "mailbox__memberships__user"),
        admins=False,
        label=_("Message"),
        find_with="getInboxMessages",
    )

    mailbox = models.ForeignKey(Mailbox, on_delete=models.CASCADE, related_name="messages")
    folder = models.ForeignKey(Folder, on_delete=models.CASCADE, related_name="messages")
    uid = models.BigIntegerField()
    thread = models.ForeignKey(
        Thread, on_delete=models.SET_NULL, null=True, blank=True, related_name="messages"
    )
    message_id = models.CharField(max_length=998, blank=True)
    in_reply_to = models.CharField(max_length=998, blank=True)
    references = models.TextField(blank=True)
    subject = models.TextField(blank=True)
    sender = models.CharField(max_length=500, blank=True)  # the From header, decoded
    from_address = models.CharField(max_length=254, blank=True)  # lower case
    to = models.JSONField(default=list)
    cc = models.JSONField(default=list)
    reply_to = models.JSONField(default=list)
    # Every address of From, To and Cc, lower case (the contacts' and accounts' e-mail search).
    addresses = models.JSONField(default=list)
    date = models.DateTimeField(default=timezone.now)
    flags = models.JSONField(default=list)
    size = models.PositiveIntegerField(default=0)
    text = models.TextField(blank=True)
    html = models.TextField(blank=True)  # sanitised (apps.mail.content)
    blocked_images = models.PositiveIntegerField(default=0)
    attachments = models.JSONField(default=list)  # [{name, type, size}]
    # An auto-reply (`sync.automatic`): an out-of-office, a "we got your message". Nothing should
    # answer it, or act on it as on a person's words.
    automatic = models.BooleanField(default=False)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-date", "-id"]
        constraints = [models.UniqueConstraint(fields=["folder", "uid"], name="mail_message_uid_once")]
        indexes = [
            models.Index(fields=["mailbox", "message_id"], name="mail_message_id_idx"),
            models.Index(fields=["mailbox", "-date"], name="mail_message_date_idx"),
        ]

    def __str__(self) -> str:
        return f"message {self.pk}"

    @property
    def unread(self) -> bool:
        return "\\Seen" not in self.flags

    @property
    def snippet(self) -> str:
        return " ".join(self.text.split())[:200]


class Draft(Record):
    """A message being written in a mailbox: new, a reply (`reply_to`) or a forward
    (`forward_of`). Sent through the outbox (apps.mail.sending), then marked `sent_at`."""

    access = Access(
        MailPerm,
        through="mailbox",
        # Whoever sees the mailbox reads its drafts; a draft is changed by who writes it, and by
        # the mailbox's owner (a colleague's draft in a shared mailbox is never overwritten).
        owner=("author", "mailbox__owner"),
        read_only_error=DraftOfAnother,
        admins=False,
        label=_("Draft"),
        find_with="listDrafts",
        trash_hint=_("It can be restored from the Mail page."),
    )

    mailbox = models.ForeignKey(Mailbox, on_delete=models.CASCADE, related_name="drafts")
    author = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    from_address = models.CharField(max_length=254)
    to = models.JSONField(default=list)
    cc = models.JSONField(default=list)
    bcc = models.JSONField(default=list)
    subject = models.CharField(max_length=998, blank=True)
    body = models.TextField(blank=True)  # plain text; the signature and any quote are added on sending
    reply_to = models.ForeignKey(Message, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    # A reply's threading headers, fixed when it became one: the message answered may leave this
    # copy before the reply is sent (deleted or moved by another mail program, its folder
    # renumbered), and the reply still goes in its thread (apps.mail.services.draft_send).
    in_reply_to = models.CharField(max_length=998, blank=True)
    references = models.TextField(blank=True)
    # Files of the Files area (ids), each read as the sender when it is sent: a MIME part apiece.
    attachments = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=1)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Its copy in the server's Drafts folder (apps.mail.drafts), as mail programs keep one: the
    # copies' Message-ID, where the copy is (folder, UIDVALIDITY, UID) and of which version, the
    # older copies still to remove ([folder, uidvalidity, uid], ...), and whether the server is
    # behind (a failure, tried again with the mailbox's next sync).
    message_id = models.CharField(max_length=998, blank=True)
    server_folder = models.CharField(max_length=500, blank=True)
    server_uidvalidity = models.BigIntegerField(null=True, blank=True)
    server_uid = models.BigIntegerField(null=True, blank=True)
    server_version = models.PositiveIntegerField(default=0)
    server_stale = models.JSONField(default=list, blank=True)
    server_pending = models.BooleanField(default=False)

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [
            models.Index(
                fields=["mailbox"], condition=models.Q(server_pending=True), name="mail_draft_pending_idx"
            )
        ]

    def __str__(self) -> str:
        return f"draft {self.pk}"


class Signature(models.Model):
    """A person's signature in one mailbox, added once, above any quoted text."""

    access = Access(MailPerm, through="mailbox", admins=False, label=_("Signature"), find_with="listInboxes")

    mailbox = models.ForeignKey(Mailbox, on_delete=models.CASCADE, related_name="signatures")
    user = models.ForeignKey(USER, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RecordQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["mailbox", "user"], name="mail_signature_once")]

    def __str__(self) -> str:
        return f"signature {self.pk}"


class Outgoing(models.Model):
    """The outbox: one row per message to send, made before anything is sent. A row is sent
    once: it is claimed (`sending`) in its own transaction, then `sent` or `failed`; a failed
    row is tried again only by sending the same draft again (the same Message-ID), and a row
    left `sending` by a process that died is never sent again (it may have gone)."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        SENDING = "sending", _("sending")
        SENT = "sent", _("sent")
        FAILED = "failed", _("failed")
        UNKNOWN = "unknown", _("interrupted: may have been sent")

    access = Access(MailPerm, through="mailbox", admins=False, label=_("Outgoing message"))

    mailbox = models.ForeignKey(Mailbox, on_delete=models.CASCADE, related_name="outbox")
    draft = models.ForeignKey(Draft, on_delete=models.SET_NULL, null=True, blank=True, related_name="outbox")
    created_by = models.ForeignKey(USER, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    kind = models.CharField(max_length=20)  # send, reply, forward, resend, file
    message_id = models.CharField(max_length=998, unique=True)
    subject = models.TextField(blank=True)
    sender = models.CharField(max_length=254)
    recipients = models.JSONField(default=list)
    raw = models.BinaryField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    problem = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    stored_in_sent = models.BooleanField(default=False)

    objects = RecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"outgoing {self.pk}"


class Suppression(models.Model):
    """An address on the workspace's suppression list (apps.mail.suppression): no campaign or
    marketing mail goes to it again. Whole-workspace: every sender checks it."""

    class Reason(models.TextChoices):
        UNSUBSCRIBED = "unsubscribed", _("unsubscribed")
        BOUNCED = "bounced", _("bounced")
        COMPLAINED = "complained", _("complained")
        MANUAL = "manual", _("added by hand")

    # Lower case; blanked when the person is erased (the digest keeps the objection honoured).
    address = models.CharField(max_length=254, blank=True)
    digest = models.CharField(max_length=64, unique=True)  # SHA-256 of the address
    reason = models.CharField(max_length=20, choices=Reason.choices)
    # What the address was unsubscribed from ("deals.campaign:12"): never a person's name.
    source = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("suppressed address")

    def __str__(self) -> str:
        return f"suppression {self.pk}"
