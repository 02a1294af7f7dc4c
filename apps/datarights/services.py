"""Writes: receiving a data-rights request, notifying the data team, the data team's changes.

Logging rule (SPEC 10.3): lines name the request by its reference and the workspace by its
schema, nothing else; never the requester's name, e-mail, account or details, nor the data
team's address.
"""

import hashlib
import hmac
import json
import logging
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.db import OperationalError, connection, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _
from psycopg.errors import LockNotAvailable

from apps.datarights.models import DataRequest

logger = logging.getLogger(__name__)
# One line per accepted request: operators can follow a request by its reference.
audit = logging.getLogger("atrium.audit.datarights")

# Crockford's base32 without I, L, O, U: readable over the phone, no look-alikes.
REFERENCE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
# The sweeper's first look at a request whose immediate notification task never ran.
FIRST_SWEEP_DELAY = timedelta(minutes=2)
SWEEP_BACKOFF_CAP = timedelta(hours=1)
# How long sending waits for the request's row (a copy being counted holds it for an instant).
NOTIFY_LOCK_WAIT_MS = 2000


class NotificationFailed(Exception):
    """Carries only the kind of the failure: an SMTP error's text can hold the recipient."""


def new_reference() -> str:
    body = "".join(secrets.choice(REFERENCE_ALPHABET) for _ in range(8))
    return f"DR-{body[:4]}-{body[4:]}"


def fingerprint(data: dict[str, Any], workspace_id: int | None) -> str:
    """A keyed digest of what was asked, to recognise the same request sent again.

    `received_at` is left out on purpose: a form submitted twice carries two timestamps.
    """
    content = {key: data.get(key, "") for key in ("type", "name", "email", "account", "details")}
    content.update(locale=data["locale"], country=data["country"], workspace=workspace_id)
    message = json.dumps(content, sort_keys=True, ensure_ascii=False).encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()


def data_request_receive(
    *, data: dict[str, Any], host: str, workspace: Any | None
) -> tuple[DataRequest, bool]:
    """Stores a validated request (SPEC 2.6) and schedules the data team's notification.

    Returns (request, created): the same request sent again within the duplicate window gives
    back the first one, counted but neither stored nor notified again.
    """
    workspace_id = workspace.pk if workspace is not None else None
    digest = fingerprint(data, workspace_id)
    now = timezone.now()
    window = timedelta(seconds=settings.DATA_REQUEST_DUPLICATE_WINDOW_SECONDS)
    with transaction.atomic():
        # Two copies arriving at once must not both pass the duplicate check.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [int(digest[:15], 16)])
        earlier = (
            DataRequest.objects.filter(fingerprint=digest, created_at__gte=now - window)
            .order_by("-created_at")
            .first()
        )
        if earlier is not None:
            DataRequest.objects.filter(pk=earlier.pk).update(
                duplicates=F("duplicates") + 1, last_duplicate_at=now
            )
            audit.info(
                "data-rights request %s sent again (host workspace %s); not notified twice",
                earlier.reference,
                workspace.schema_name if workspace is not None else "-",
            )
            return earlier, False
        request = DataRequest.objects.create(
            reference=_unique_reference(),
            type=data["type"],
            name=data.get("name", ""),
            email=data["email"],
            account=data.get("account", ""),
            details=data.get("details", ""),
            locale=data["locale"],
            country=data["country"],
            received_at=data["received_at"],
            host=host[:255],
            workspace=workspace if workspace_id is not None else None,
            fingerprint=digest,
            notification_due_at=now + FIRST_SWEEP_DELAY,
        )
        audit.info(
            "data-rights request %s accepted: type %s, host workspace %s",
            request.reference,
            request.type,
            workspace.schema_name if workspace is not None else "-",
        )
        transaction.on_commit(lambda: _enqueue_notification(request.pk, request.reference))
    return request, True


def _unique_reference() -> str:
    while True:
        reference = new_reference()
        if not DataRequest.objects.filter(reference=reference).exists():
            return reference


def _enqueue_notification(request_id: int, reference: str) -> None:
    from apps.datarights.tasks import notify_data_team

    try:
        notify_data_team.delay(request_id)
    except Exception as error:
        # The broker is down: the row stays pending and the sweeper sends it.
        logger.warning(
            "data-rights request %s: notification not queued (%s); the sweeper will send it",
            reference,
            type(error).__name__,
        )


# --- notifying the data team -------------------------------------------------------------------


def _backoff(attempts: int) -> timedelta:
    return min(timedelta(minutes=2**attempts), SWEEP_BACKOFF_CAP)


def _admin_link(request: DataRequest) -> str:
    base = settings.DATA_REQUEST_ADMIN_URL.rstrip("/")
    return f"{base}/datarights/datarequest/{request.pk}/change/"


def notification_message(request: DataRequest) -> EmailMessage:
    """The data team's e-mail. It says that a request came in and where to handle it; the
    requester's name, e-mail, account and words stay in the admin, not in mailboxes."""
    lines = [
        _("A data-rights request has been received."),
        "",
        f"{_('Reference')}: {request.reference}",
        f"{_('Type')}: {request.type}",
        f"{_('Received (as sent)')}: {request.received_at.isoformat()}",
        f"{_('Stored')}: {request.created_at.isoformat()}",
        f"{_('Receiving host')}: {request.host}",
        f"{_('Workspace')}: {request.workspace.schema_name if request.workspace else '-'}",
        f"{_('Country')}: {request.country}",
        f"{_('Locale')}: {request.locale}",
        "",
        _("The requester's details are in the admin of the public site:"),
        _admin_link(request),
    ]
    return EmailMessage(
        subject=f"[Atrium] {_('Data-rights request')} {request.reference} ({request.type})",
        body="\n".join(lines) + "\n",
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[settings.DATA_TEAM_EMAIL],
        headers={"X-Atrium-Reference": request.reference},
        # The row stays locked while we talk to the mail server: never wait on it for ever.
        connection=get_connection(timeout=settings.DATA_REQUEST_SMTP_TIMEOUT),
    )


def data_request_notify(*, request_id: int) -> str:
    """Sends the data team's e-mail for one request, at most once.

    Returns "sent", "already_sent" or "busy" (another worker holds the row); raises
    NotificationFailed (after recording the failure on the row) when the e-mail did not go out.
    """
    failure: str | None = None
    with transaction.atomic():
        try:
            request = _locked_for_sending(request_id)
        except OperationalError as error:
            if not isinstance(error.__cause__, LockNotAvailable):
                raise
            return "busy"  # another worker is sending it right now
        if request is None:  # the row is gone
            return "busy"
        if request.notification == DataRequest.Notification.SENT:
            return "already_sent"
        now = timezone.now()
        request.notification_attempts += 1
        try:
            if not settings.DATA_TEAM_EMAIL:
                raise NotificationFailed("DATA_TEAM_EMAIL is not configured")
            notification_message(request).send(fail_silently=False)
        except Exception as error:
            failure = "NotConfigured" if isinstance(error, NotificationFailed) else type(error).__name__
            request.notification_error = failure[:100]
            request.notification_due_at = now + _backoff(request.notification_attempts)
        else:
            request.notification = DataRequest.Notification.SENT
            request.notified_at = now
            request.notification_error = ""
            request.notification_due_at = None
        request.save(
            update_fields=[
                "notification",
                "notification_attempts",
                "notification_error",
                "notification_due_at",
                "notified_at",
            ]
        )
    if failure is not None:
        logger.warning(
            "data-rights request %s: data team not notified (%s, attempt %s); will retry",
            request.reference,
            failure,
            request.notification_attempts,
        )
        raise NotificationFailed(failure)
    logger.info("data-rights request %s: data team notified", request.reference)
    return "sent"


def _locked_for_sending(request_id: int) -> DataRequest | None:
    """The request's row, locked. A copy of the request being counted (`data_request_receive`)
    holds the row for an instant: that is waited for, up to NOTIFY_LOCK_WAIT_MS. Held longer, it
    is another worker sending this very e-mail: LockNotAvailable (in a savepoint, so the caller's
    transaction goes on)."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL lock_timeout = {int(NOTIFY_LOCK_WAIT_MS)}")
        return (
            DataRequest.objects.select_for_update(of=("self",))
            .select_related("workspace")
            .filter(pk=request_id)
            .first()
        )


def notifications_retry(*, batch: int = 100) -> int:
    """The sweeper: sends every pending notification whose time has come. Returns how many went out."""
    due = list(
        DataRequest.objects.filter(
            notification=DataRequest.Notification.PENDING, notification_due_at__lte=timezone.now()
        )
        .order_by("notification_due_at")
        .values_list("pk", flat=True)[:batch]
    )
    sent = 0
    for request_id in due:
        try:
            sent += data_request_notify(request_id=request_id) == "sent"
        except NotificationFailed:
            continue
    return sent


# --- the data team's changes (admin) -----------------------------------------------------------


def data_request_update(
    *, request: DataRequest, status: str, notes: str, actor_id: int | None
) -> DataRequest:
    """Status and notes. Closing (done, rejected) stamps the date; reopening clears it."""
    previous = DataRequest.objects.filter(pk=request.pk).values_list("status", flat=True).first()
    request.status = status
    request.notes = notes
    if request.is_closed and request.closed_at is None:
        request.closed_at = timezone.now()
    elif not request.is_closed:
        request.closed_at = None
    request.save(update_fields=["status", "notes", "closed_at", "updated_at"])
    if previous != status:
        audit.info(
            "data-rights request %s: status %s -> %s by operator %s",
            request.reference,
            previous,
            status,
            actor_id,
        )
    return request
