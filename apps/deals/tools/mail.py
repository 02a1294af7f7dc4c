"""The Deals area's e-mail: thin doors onto the mail app (apps.mail), for the mailboxes the person
may use (its own rule: the mail app's permissions apply besides deals.mail). Agents get text
(quoted history trimmed), never HTML. Sending is HIGH RISK."""

from datetime import datetime
from typing import Annotated

from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Limit, Offset, Out, Page, id_field, paginate
from apps.core.actors import can
from apps.core.errors import invalid
from apps.core.kinds import sources
from apps.deals import services as deal_services
from apps.deals.models import Deal
from apps.deals.permissions import DealsPerm
from apps.mail import api as mail
from apps.mail.api import Message, Outgoing

MessageId = Annotated[int, id_field("searchMail")]


class MailSummary(Out):
    id: int
    inbox_id: int
    thread_id: int | None
    subject: str
    sender: str
    to: list[str]
    date: datetime
    unread: bool
    snippet: str


class MailOut(MailSummary):
    cc: list[str]
    text: str = Field(description="Quoted history left out")
    attachments: list[str]
    thread: list[MailSummary]


class SentMailOut(Out):
    outgoing_id: int
    message_id: str = Field(description="Its Message-ID header")
    status: str
    recipients: int
    sent_at: datetime | None


def _summary(message: Message) -> MailSummary:
    return MailSummary.of_record(message, inbox_id=message.mailbox_id)


def _sent(row: Outgoing) -> SentMailOut:
    return SentMailOut.of_record(row, outgoing_id=row.pk, recipients=len(row.recipients))


@tool("getInboxMessage", permission=DealsPerm.MAIL, title="Read an e-mail", read_only=True)
def get_inbox_message(ctx: ToolContext, *, message_id: MessageId) -> MailOut:
    """Read one e-mail as text with its thread; searchMail finds it."""
    sources.mailboxes()
    message = mail.message(actor=ctx.actor, message_id=message_id)
    text, _trimmed = mail.trim_quoted(message.text)
    thread = mail.thread_messages(actor=ctx.actor, message=message)
    return MailOut.of_record(
        message,
        inbox_id=message.mailbox_id,
        text=text,
        attachments=[str(item.get("name", "")) for item in message.attachments],
        thread=[_summary(other) for other in thread],
    )


@tool("searchMail", permission=DealsPerm.MAIL, title="Search e-mail", read_only=True)
def search_mail(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words of subject, text, sender")] = "",
    inbox_id: Annotated[int | None, Field(ge=1, description="Only this mailbox")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[MailSummary]:
    """Search the e-mail of your mailboxes, newest first; getInboxMessage reads one."""
    sources.mailboxes()
    rows = mail.message_search(actor=ctx.actor, query=query, sender="", mailbox_id=inbox_id)
    return paginate(rows, limit=limit, offset=offset, item=_summary)


@tool(
    "replyEmail",
    permission=DealsPerm.MAIL,
    title="Reply to an e-mail",
    markers=Marker.HIGH_RISK,
    open_world=True,
)
def reply_email(
    ctx: ToolContext,
    *,
    message_id: MessageId,
    body: Annotated[str, Field(min_length=1, max_length=20_000, description="Plain text; signature added")],
    reply_all: Annotated[bool, Field(description="Also its other recipients")] = False,
    attachment_file_ids: Annotated[
        list[Annotated[int, Field(ge=1, le=2**63 - 1)]],
        Field(max_length=mail.MAX_ATTACHMENTS, description="Files to attach, from listFiles"),
    ] = [],  # noqa: B006
) -> SentMailOut:
    """Reply to an e-mail in its thread at once, from the mailbox it came to."""
    sources.mailboxes()
    message = mail.message(actor=ctx.actor, message_id=message_id)
    row = mail.message_reply(
        actor=ctx.actor, message=message, body=body, reply_all=reply_all, attachments=attachment_file_ids
    )
    return _sent(row)


@tool(
    "sendDraft",
    permission=DealsPerm.MAIL,
    title="Send a draft",
    markers=Marker.HIGH_RISK,
    open_world=True,
)
def send_draft(ctx: ToolContext, *, draft_id: Annotated[int, id_field("listDrafts")]) -> SentMailOut:
    """Send a draft written with updateDraft, once (a failed try can be repeated)."""
    sources.mailboxes()
    draft = mail.draft(actor=ctx.actor, draft_id=draft_id)
    return _sent(mail.draft_send(actor=ctx.actor, draft=draft))


def _subject(given: str, question: str) -> str:
    """The subject the customer reads: the one given, else the question's first line. Never the
    deal's title, which is the team's own name for the deal ("Acme: squeeze 40 seats")."""
    line = " ".join(given.split()) or " ".join(question.strip().splitlines()[0].split())
    return line if len(line) <= 120 else line[:119].rstrip() + "…"


@tool(
    "requestDealInfoEmail",
    permission=DealsPerm.MAIL,
    title="E-mail a deal's contact for information",
    markers=Marker.HIGH_RISK,
    open_world=True,
)
def request_deal_info_email(
    ctx: ToolContext,
    *,
    deal_id: Annotated[int, id_field("searchDeals")],
    question: Annotated[str, Field(min_length=1, max_length=5_000, description="What you need to know")],
    to: Annotated[str, Field(max_length=320, description="Default: the deal's contact")] = "",
    subject: Annotated[str, Field(max_length=200, description="Default: the question's first line")] = "",
) -> SentMailOut:
    """E-mail a deal's contact asking for information the deal needs (budget, timing, decision)."""
    sources.mailboxes()
    deal = Deal.objects.select_related("contact").fetch(ctx.actor, deal_id)
    address = to or (deal.contact.email if deal.contact and deal.contact.deleted_at is None else "")
    if not address:
        raise invalid("to", _("deal {deal} has no contact with an e-mail address; give one"), deal=deal.pk)
    mailbox = mail.default_mailbox(actor=ctx.actor)
    name = deal.contact.first_name if deal.contact and deal.contact.first_name else ""
    body = f"Hello{' ' + name if name else ''},\n\n{question.strip()}\n\nThank you."
    # Logged on the deal as a contact when the person may change it (decided before sending: a
    # message that went is never undone by a failing log).
    logs = can(ctx.actor, DealsPerm.MANAGE) and Deal.access.allows(ctx.actor, deal, "change")
    row = mail.mail_new(
        actor=ctx.actor, mailbox=mailbox, to=[address], subject=_subject(subject, question), text=body
    )
    if logs:
        deal_services.contact_log(
            actor=ctx.actor,
            deal_id=deal.pk,
            channel="email",
            summary=f"Asked by e-mail: {question.strip()}"[:1000],
        )
    return _sent(row)
