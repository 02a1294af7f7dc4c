"""The mail app as the message source of other areas (apps.core.kinds.sources): the e-mails from
or to some addresses (a contact's, a group account's people), in the mailboxes the actor may use."""

from typing import Any

from django.db.models import Q

from apps.core.kinds.sources import Message as FoundMessage
from apps.core.kinds.sources import MessagePage
from apps.core.search import matching


class MailMessages:
    area = "emailinbox"

    def search(self, *, actor: Any, addresses: list[str], query: str, limit: int, offset: int) -> MessagePage:
        from apps.mail.models import Message

        wanted = sorted({address.strip().lower() for address in addresses if address.strip()})
        if not wanted:
            return MessagePage()
        rows = Message.objects.restrict(actor).filter(_any(wanted))
        if query:
            rows = matching(rows, query, ("subject", "text", "sender"))
        total = rows.count()
        items = [
            FoundMessage(
                id=message.pk,
                subject=message.subject,
                sender=message.from_address,
                recipients=[*message.to, *message.cc],
                sent_at=message.date,
                snippet=message.snippet,
                area=self.area,
            )
            for message in rows.order_by("-date", "-id")[offset : offset + limit]
        ]
        return MessagePage(items=items, total=total)


def _any(wanted: list[str]) -> Q:
    """From or to (To, Cc) any of the addresses."""
    condition = Q(from_address__in=wanted)
    for address in wanted:
        condition |= Q(addresses__contains=[address])
    return condition
