"""The demo workspaces' mail (seed_demo; idempotent): a personal mailbox for each demo person
and a shared Support mailbox, on the local mail server, with a few realistic threads put in
their folders (IMAP APPEND) the first time they are empty, then synchronised."""

import imaplib
import logging
import time
from datetime import timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from typing import Any

from django.conf import settings
from django.utils import timezone

from apps.core.errors import AppError
from apps.mail import servers, sync
from apps.mail.models import Mailbox, MailboxMember

logger = logging.getLogger(__name__)


def _message(
    *, sender: str, to: str, subject: str, text: str, days_ago: float, html: str = "", replying: Any = None
) -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, subject
    message["Date"] = format_datetime(timezone.now() - timedelta(days=days_ago))
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2].rstrip(">"))
    if replying is not None:
        message["In-Reply-To"] = replying["Message-ID"]
        message["References"] = replying["Message-ID"]
    if text:
        message.set_content(text)
    if html and text:
        message.add_alternative(html, subtype="html")
    elif html:
        message.set_content(html, subtype="html")
    return message


def threads(address: str) -> list[tuple[str, EmailMessage]]:
    """(folder, message) of a person's demo mail: a customer conversation with a reply in Sent,
    an HTML newsletter with a tracking image, a colleague's note."""
    customer = "Jo Brennan <jo.brennan@example.org>"
    ask = _message(
        sender=customer,
        to=address,
        subject="Pricing for 40 seats",
        text="Hello,\n\nWe are looking at 40 seats from March. Could you send us your pricing, and tell us "
        "whether the annual plan includes onboarding?\n\nThanks,\nJo",
        days_ago=3,
    )
    answer = _message(
        sender=address,
        to=customer,
        subject="Re: Pricing for 40 seats",
        text="Hi Jo,\n\nThe annual plan is 18 EUR per seat and month, onboarding included. I attach nothing "
        "yet: shall we book a call on Thursday?\n\nBest regards",
        days_ago=2.5,
        replying=ask,
    )
    again = _message(
        sender=customer,
        to=address,
        subject="Re: Pricing for 40 seats",
        text="Thursday at 10:00 works for us.\n\nJo\n\nOn an earlier day, you wrote:\n> Hi Jo,\n> The annual "
        "plan is 18 EUR per seat and month.",
        days_ago=2,
        replying=answer,
    )
    news = _message(
        sender="Northwind Weekly <news@northwind.example>",
        to=address,
        subject="This week: five ways to shorten your sales cycle",
        text="",
        html='<h1>Five ways to shorten your sales cycle</h1><p>Read them <a href="https://northwind.example/'
        'weekly">online</a>.</p><img src="https://tracker.northwind.example/open.gif" alt="">'
        "<script>alert(1)</script>",
        days_ago=1,
    )
    note = _message(
        sender=f"Office <office@{address.rpartition('@')[2]}>",
        to=address,
        subject="Quarterly review moved to Friday",
        text="The quarterly review moves to Friday, 14:00, room 2. Agenda as before.",
        days_ago=0.5,
    )
    return [("INBOX", ask), ("Sent", answer), ("INBOX", again), ("INBOX", news), ("INBOX", note)]


def support_threads(address: str) -> list[tuple[str, EmailMessage]]:
    question = _message(
        sender="Sam Ortiz <sam.ortiz@example.net>",
        to=address,
        subject="Cannot sign in since yesterday",
        text="Hi, since yesterday the sign-in page says my password is wrong, though I reset it. Can you "
        "help?\n\nSam",
        days_ago=1,
    )
    return [("INBOX", question)]


def _fill(mailbox: Mailbox, messages: list[tuple[str, EmailMessage]]) -> bool:
    """Appends the messages if the mailbox's INBOX is empty; True when it did."""
    with servers.imap(mailbox) as client:
        status, data = client.select("INBOX", readonly=True)
        if status != "OK" or int(data[0] or 0) > 0:
            return False
        for folder, message in messages:
            flags = "(\\Seen)" if folder != "INBOX" else ""
            client.append(
                sync.quoted(folder), flags, imaplib.Time2Internaldate(time.time()), message.as_bytes()
            )
    return True


def support_mailbox(*, people: list[Any], domain: str) -> Mailbox:
    """The demo's shared Support mailbox (the people but the viewer its members), made when
    missing: Customer Service's demo, seeded first, makes it its support mailbox."""
    address = f"support@{domain}"
    support = Mailbox.objects.filter(address=address).first()
    if support is None:
        owner = next((p for p in people if p.email.startswith("owner@")), people[0] if people else None)
        support = Mailbox.objects.create(name="Support", address=address, owner=owner, shared=True)
        for person in people:
            if not person.email.startswith("viewer@"):
                MailboxMember.objects.get_or_create(mailbox=support, user=person)
    return support


def seed(*, people: list[Any], domain: str) -> None:
    """Mailboxes of the demo people and the Support mailbox; their threads when the local mail
    server runs (without it, the mailboxes wait for it: `make run` starts it)."""
    boxes = []
    for person in people:
        mailbox = Mailbox.objects.filter(address=person.email).first()
        if mailbox is None:
            mailbox = Mailbox.objects.create(
                name=person.email.partition("@")[0].capitalize(), address=person.email, owner=person
            )
        boxes.append((mailbox, threads(person.email)))
    support = support_mailbox(people=people, domain=domain)
    boxes.append((support, support_threads(support.address)))
    if not settings.ATRIUM_MAIL_LOCAL_IMAP:
        return
    for mailbox, messages in boxes:
        try:
            _fill(mailbox, messages)
            sync.sync(mailbox)
        except AppError as error:
            logger.warning("demo mailbox %s not filled: %s", mailbox.pk, error.code)
