"""The Email Inbox area, as the rest of the service knows it (apps.core.areas). Its app is the
one mail app (apps.mail); the mail tools of other areas are doors onto the same services."""

from typing import Any

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.kinds import Kind
from apps.core.navigation import NavItem
from apps.mail.permissions import MailPerm
from apps.mail.sources import MailMessages

MB = 1024 * 1024


def message_title(message: Any) -> str:
    return message.subject or message.sender


area = areas.declare(
    key="emailinbox",
    title=_("Email Inbox"),
    group=areas.Group.WORK,
    description=_("Mailboxes on IMAP and SMTP servers: folders, messages, threads, drafts, signatures"),
    words="email e-mail mail inbox mailbox message draft signature",
    hints={
        "listInboxes": "which mailboxes email accounts shared inboxes do I have or can I use, unread counts",
        "getInboxFolders": "mail folders sent drafts trash archive junk, how many messages in each",
        "getInboxMessages": "latest emails unread mail in my inbox, what came in today, a folder's messages",
        "findAndReadEmail": (
            "find open read an email message in my inbox by subject sender, what someone said in their email"
        ),
        "manageEmail": "archive trash move mark read unread flag star put in a folder",
        "manageInboxFolder": "new mail folder label, rename or remove a folder or label",
        "forwardEmail": "forward pass on send on an email to a colleague accounting",
        "resendEmail": "resend send that email again never arrived did not get it",
        "sendEmail": "send off my draft reply now",
        "listDrafts": "unsent emails drafts I am writing",
        "getDraft": "show me open read one draft email reply",
        "updateDraft": (
            "write compose new email draft reply edit draft, add someone in cc, change the subject"
        ),
        "deleteDraft": "delete discard throw away an unsent email draft",
        "getEmailSignature": "my email signature sign-off",
        "updateEmailSignature": "change set remove my email signature sign-off block at the bottom",
        "openInboxSettings": "mail settings page connect a mailbox, change its password, link",
    },
    profiles={
        "essentials": (
            "listInboxes",
            "getInboxMessages",
            "findAndReadEmail",
            "updateDraft",
            "getInboxFolders",
            "manageEmail",
            "manageInboxFolder",
        ),
        "sales": ("findAndReadEmail",),
        "people": ("getInboxMessages", "findAndReadEmail", "updateDraft"),
        "support": (
            "listInboxes",
            "getInboxMessages",
            "findAndReadEmail",
            "updateDraft",
            "forwardEmail",
            "resendEmail",
            "listDrafts",
            "getDraft",
            "deleteDraft",
        ),
        "marketing": ("sendEmail", "getEmailSignature", "updateEmailSignature"),
        "admin": ("openInboxSettings",),
    },
    nav=[NavItem("mail", _("Mail"), "mail:settings", MailPerm.VIEW, order=36)],
    message_sources=[MailMessages()],
    kinds=[
        # Read by the people of its mailbox alone; links to one from someone go when their data is erased.
        Kind(
            "email",
            "mail.Message",
            named=_("E-mail"),
            title=message_title,
            person_email="from_address",
            search=("subject", "sender", "text"),
        ),
        # A conversation to point at (its messages are what the search finds).
        Kind("email_thread", "mail.Thread", title="subject", named=_("E-mail thread")),
    ],
    not_kinds={
        "mail.Mailbox": "a connection to a mail server, set up on the Mail page; its messages are records",
        "mail.Folder": "a folder of a mailbox, opened by getInboxFolders",
        "mail.Draft": "an unsent message, its author's work in progress (listDrafts)",
        "mail.Signature": "a person's sign-off in a mailbox",
        "mail.Outgoing": "a message on its way out (the outbox), the service's delivery alone",
    },
    periodic={
        # Each mailbox is polled from its cursor (UIDVALIDITY, UIDNEXT per folder) every minute.
        "sync-mailboxes": areas.Periodic("apps.mail.tasks.sync_mailboxes", crontab(minute="*")),
        # Outbox rows made but never tried (a process that stopped between the two) are sent.
        "send-outbox": areas.Periodic("apps.mail.tasks.send_outbox", crontab(minute="*")),
    },
    settings={
        # The local mail server of `make run`, `make up` and the tests (bootstrap.py starts it
        # and sets these); empty: mailboxes connect to outside servers only.
        "ATRIUM_MAIL_LOCAL_IMAP": env.str("ATRIUM_MAIL_LOCAL_IMAP", ""),
        "ATRIUM_MAIL_LOCAL_SMTP": env.str("ATRIUM_MAIL_LOCAL_SMTP", ""),
        "ATRIUM_MAIL_LOCAL_PASSWORD": env.str("ATRIUM_MAIL_LOCAL_PASSWORD", ""),
        # The largest message sent or forwarded (its encoded size, attachments included).
        "ATRIUM_MAIL_MAX_BYTES": env.int("ATRIUM_MAIL_MAX_BYTES", 25 * MB, min=1024),
        # How long a connection to a mail server may take to answer.
        "ATRIUM_MAIL_TIMEOUT_SECONDS": env.int("ATRIUM_MAIL_TIMEOUT_SECONDS", 20, min=1),
        # The newest messages copied per folder on a mailbox's first sync.
        "ATRIUM_MAIL_SYNC_FIRST": env.int("ATRIUM_MAIL_SYNC_FIRST", 200, min=1),
        # How long a one-click unsubscribe link of a campaign message keeps working.
        "ATRIUM_MAIL_UNSUBSCRIBE_DAYS": env.int("ATRIUM_MAIL_UNSUBSCRIBE_DAYS", 730, min=30),
    },
)
