"""Bounces and complaints that an e-mail service provider reports, when the workspace's mail goes
out through one (Mailgun, Postmark, Brevo, SparkPost, Resend, Mailjet, Mailtrap, Mandrill): its
tracking webhook, verified by django-anymail (HTTP Basic authentication with `WEBHOOK_SECRET`,
and the ESP's own signature where it signs: Mailgun's HMAC-SHA256, Mandrill's), posted to the
workspace's own host at `/mail/esp/<esp>/tracking/`.

Each event anymail hands over becomes the same `DeliveryReport` a DSN read from the mailbox does
(apps.mail.reports), for the same handlers (Marketing: the suppression list):

- `bounced`, `rejected`: a permanent bounce; `deferred`: a transient one;
- `complained`: a complaint;
- `unsubscribed` (the ESP's own unsubscribe link): the address on the suppression list.

An ESP whose webhook needs a setting or a package that is not given (Mailgun's signing key,
Amazon SES's boto3) is not served;
without `WEBHOOK_SECRET`, none is (anymail would take unauthenticated posts)."""

import logging
from typing import Any

from anymail import urls as anymail_urls
from anymail.signals import AnymailTrackingEvent, EventType, tracking
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.dispatch import receiver
from django.urls import URLPattern

from apps.core.errors import AppError
from apps.mail import reports, suppression

logger = logging.getLogger(__name__)

# Anymail keeps these for compatibility only (SendGrid is unsupported; Sendinblue is Brevo).
_LEFT_OUT = ("sendgrid", "sendinblue")
_BOUNCES = {EventType.BOUNCED: True, EventType.REJECTED: True, EventType.DEFERRED: False}


def urlpatterns() -> list[URLPattern]:
    """The tracking webhooks of the ESPs whose settings are given (none without WEBHOOK_SECRET)."""
    if not getattr(settings, "ANYMAIL", {}).get("WEBHOOK_SECRET"):
        return []
    served = []
    for pattern in anymail_urls.urlpatterns:
        name = pattern.name or ""
        if not name.endswith("_tracking_webhook") or name.startswith(_LEFT_OUT):
            continue
        try:
            pattern.callback.view_class()
        except ImproperlyConfigured:
            continue  # a setting this ESP's webhook needs is not given
        served.append(pattern)
    return served


def report_of(event: AnymailTrackingEvent, esp_name: str) -> reports.DeliveryReport | None:
    """The delivery report an ESP's event is, or None (an open, a click, a delivery...)."""
    address = (event.recipient or "").strip().lower()
    if not address:
        return None
    if event.event_type == EventType.COMPLAINED:
        kind, failure = reports.COMPLAINT, reports.Failure(address, permanent=True)
    elif event.event_type in _BOUNCES:
        kind, failure = reports.BOUNCE, reports.Failure(address, permanent=_BOUNCES[event.event_type])
    else:
        return None
    given = (event.message_id or "").strip()
    message_ids = (given, f"<{given.strip('<>')}>") if given else ()
    return reports.DeliveryReport(
        kind=kind, mailbox_id=None, failures=(failure,), message_ids=message_ids, source=f"esp:{esp_name}"
    )


@receiver(tracking, dispatch_uid="apps.mail.esp.tracked")
def tracked(sender: Any, event: AnymailTrackingEvent, esp_name: str, **kwargs: Any) -> None:
    if event.event_type == EventType.UNSUBSCRIBED and event.recipient:
        try:
            suppression.suppress(event.recipient, reason="unsubscribed", source=f"esp:{esp_name.lower()}")
        except AppError:
            logger.warning("%s: an unsubscribe for an address that is not one was left alone", esp_name)
        return
    report = report_of(event, esp_name.lower())
    if report is not None:
        reports.hand_over(report)
