"""The workspace's one suppression list: addresses that must not get bulk or sequenced mail again
(unsubscribed, hard-bounced, complained). The Deals area's reachout campaigns and, later,
Marketing share it: every sender asks `is_suppressed(address)` before each message.

One-click unsubscribe (RFC 8058): `headers(address, source)` gives the `List-Unsubscribe` (an
https or http URL on the workspace's host) and `List-Unsubscribe-Post: List-Unsubscribe=One-Click`
headers of a message; the URL carries a signed token (apps.tenancy.links.sign: the address, the
source, the workspace's schema), so nobody can unsubscribe an address they did not receive mail
at. The page (apps.mail.views.unsubscribe) answers GET with a confirmation form and POST (a mail
client's one click, or the form) by adding the address here.

An address is kept lower case beside its SHA-256 (`digest`): erasing a person blanks the address
and keeps the digest, so that their objection is still honoured (GDPR Art. 21 and 17(3)(b)).
"""

import hashlib
import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, QuerySet

from apps.mail import addresses
from apps.mail.models import Suppression
from apps.tenancy import links

logger = logging.getLogger(__name__)
SALT = "mail.unsubscribe"


def digest(address: str) -> str:
    return hashlib.sha256(address.strip().lower().encode()).hexdigest()


def is_suppressed(address: str) -> bool:
    """True when `address` may get no more campaign or marketing mail."""
    return Suppression.objects.filter(digest=digest(address)).exists()


def suppressed_among(values: list[str]) -> set[str]:
    """The ones of `values` (lower case) on the list, in one query."""
    wanted = {digest(value): value.strip().lower() for value in values}
    found = Suppression.objects.filter(digest__in=list(wanted)).values_list("digest", flat=True)
    return {wanted[value] for value in found}


def reasons_among(values: list[str]) -> dict[str, str]:
    """The ones of `values` (lower case) on the list, each with its reason, in one query."""
    wanted = {digest(value): value.strip().lower() for value in values}
    found = Suppression.objects.filter(digest__in=list(wanted)).values_list("digest", "reason")
    return {wanted[value]: reason for value, reason in found}


def counts(*, source: str | None = None, among: list[str] | None = None) -> dict[str, int]:
    """How many addresses are on the list by reason; given `source`, those that came from it;
    given `among`, those of these addresses."""
    rows = Suppression.objects.all() if source is None else Suppression.objects.filter(source=source)
    if among is not None:
        rows = rows.filter(digest__in=[digest(value) for value in among])
    found = {reason.value: 0 for reason in Suppression.Reason}
    found.update(dict(rows.values_list("reason").annotate(n=Count("id")).values_list("reason", "n")))
    return found


def listed() -> QuerySet[Suppression]:
    """The list, newest first (a settings page shows it)."""
    return Suppression.objects.order_by("-created_at", "-id")


def suppress(address: str, *, reason: str, source: str = "") -> Suppression:
    """Adds `address` (once; a second call keeps the first reason and time)."""
    bare = addresses.one(address, field="address").lower()
    existing = Suppression.objects.filter(digest=digest(bare)).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            row = Suppression.objects.create(
                address=bare, digest=digest(bare), reason=reason, source=source[:100]
            )
    except IntegrityError:
        # Two clicks at once: the other one wrote it.
        return Suppression.objects.get(digest=digest(bare))
    logger.info("suppression %s added (%s)", row.pk, reason)
    return row


def token_for(address: str, *, source: str = "") -> str:
    return links.sign({"a": address.strip().lower(), "src": source[:100]}, salt=SALT)


def read_token(token: str) -> dict[str, str] | None:
    """{"a": address, "src": source} of a token made here, or None (forged, expired, another
    workspace's)."""
    payload = links.unsign(token, salt=SALT, max_age=int(settings.ATRIUM_MAIL_UNSUBSCRIBE_DAYS) * 86400)
    if payload is None or not isinstance(payload.get("a"), str):
        return None
    return {"a": payload["a"], "src": str(payload.get("src", ""))}


def url_for(address: str, *, source: str = "") -> str:
    return links.page("mail:unsubscribe", token=token_for(address, source=source))


def headers(address: str, *, source: str = "") -> dict[str, str]:
    """The RFC 8058 headers of a message to `address`."""
    return {
        "List-Unsubscribe": f"<{url_for(address, source=source)}>",
        "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    }
