"""Where webhook replies may go, and how they are signed (SPEC 5.3, 6.1).

A key's `response_url` must be https to a public address. Development may allow http (and https)
to loopback (`settings.WEBHOOKS_ALLOW_LOOPBACK`). A URL whose host resolves to a private,
loopback, link-local, shared, reserved or cloud-metadata address is refused (the rules of every
URL a person gives the service: `apps.core.outbound`).

The check runs twice: when the URL is saved (a host that does not resolve yet is accepted then:
DNS may come later), and again before every delivery with `require_resolution=True`, whose
addresses the sender must connect to (a name could be re-pointed at a private address between
the two: DNS rebinding).
"""

import hashlib
import hmac

from django.utils.translation import gettext as _

from apps.apikeys.errors import UnsafeWebhookUrl
from apps.core import outbound

MAX_URL_LENGTH = outbound.MAX_URL_LENGTH
# The address rules are the service's for every URL a person gives it (apps.core.outbound).
WebhookTarget = outbound.Target


def _refuse(message: str) -> UnsafeWebhookUrl:
    return UnsafeWebhookUrl(problem=message)


def check_response_url(url: str, *, require_resolution: bool = False) -> WebhookTarget:
    """The checked target of `url`, or UnsafeWebhookUrl (a 422 naming `response_url`)."""
    return outbound.check_given(
        url, noun=_("The webhook URL"), refused=_refuse, require_resolution=require_resolution
    )


def signature(secret: str, body: bytes) -> str:
    """SPEC 5.3: lowercase hex HMAC-SHA256 of the raw body, keyed with the signing secret's UTF-8
    bytes (the whole string, prefix included)."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signature_matches(secret: str, body: bytes, candidate: str) -> bool:
    return hmac.compare_digest(signature(secret, body), candidate.strip().lower())
