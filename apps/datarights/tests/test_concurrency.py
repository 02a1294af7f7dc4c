"""Copies of one request arriving at the same moment, each in its own transaction and database
connection (committed, as in production), are still one request notified once."""

import threading
import time
import uuid

from django.core import mail
from django.db import connection, transaction
from django.db.models import F

from apps.datarights import services
from apps.datarights.models import DataRequest
from apps.tenancy.models import Workspace

from .conftest import valid_body

COPIES = 4


def test_simultaneous_copies_make_one_request_and_one_email(committed, configured, eager_tasks):
    # Details of this run only, so that nothing else can match the duplicate check.
    data = {**valid_body(details=f"run {uuid.uuid4()}"), "received_at": "2025-03-14T09:26:53+00:00"}
    workspace = Workspace.objects.get(schema_name="acme")
    barrier = threading.Barrier(COPIES)
    results: list[tuple[str, bool]] = []
    errors: list[BaseException] = []

    def send() -> None:
        try:
            barrier.wait(timeout=10)
            request, created = services.data_request_receive(data=data, host="127.0.0.1", workspace=workspace)
            results.append((request.reference, created))
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=send) for _ in range(COPIES)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    try:
        assert errors == []
        assert len({reference for reference, _created in results}) == 1
        assert sorted(created for _reference, created in results) == [False] * (COPIES - 1) + [True]
        stored = DataRequest.objects.get(reference=results[0][0])
        assert stored.duplicates == COPIES - 1
        assert len(mail.outbox) == 1
    finally:
        DataRequest.objects.filter(details=data["details"]).delete()


def _pending_request(monkeypatch) -> DataRequest:  # type: ignore[no-untyped-def]
    """A request stored and committed, its notification not yet sent (nothing queued)."""
    monkeypatch.setattr(services, "_enqueue_notification", lambda request_id, reference: None)
    data = {**valid_body(details=f"run {uuid.uuid4()}"), "received_at": "2025-03-14T09:26:53+00:00"}
    request, _created = services.data_request_receive(data=data, host="127.0.0.1", workspace=None)
    return request


def _held_by_a_copy(request_id: int, seconds: float) -> threading.Thread:
    """Another connection counts a copy of the request and keeps the row `seconds` before committing."""
    held = threading.Event()

    def count_a_copy() -> None:
        try:
            with transaction.atomic():
                DataRequest.objects.filter(pk=request_id).update(duplicates=F("duplicates") + 1)
                held.set()
                time.sleep(seconds)
        finally:
            connection.close()

    thread = threading.Thread(target=count_a_copy)
    thread.start()
    assert held.wait(10)
    return thread


def test_a_copy_counted_at_the_moment_of_sending_does_not_hold_the_email_back(
    committed, configured, monkeypatch
):
    request = _pending_request(monkeypatch)
    copy = _held_by_a_copy(request.pk, seconds=0.5)
    try:
        assert services.data_request_notify(request_id=request.pk) == "sent"
    finally:
        copy.join(10)
    assert len(mail.outbox) == 1
    stored = DataRequest.objects.get(pk=request.pk)
    assert stored.notification == "sent" and stored.duplicates == 1
    stored.delete()


def test_a_row_held_longer_than_the_wait_is_left_to_whoever_holds_it(committed, configured, monkeypatch):
    request = _pending_request(monkeypatch)
    monkeypatch.setattr(services, "NOTIFY_LOCK_WAIT_MS", 100)
    copy = _held_by_a_copy(request.pk, seconds=1.5)
    try:
        assert services.data_request_notify(request_id=request.pk) == "busy"
        # The transaction it ran in is still usable: nothing was half-done.
        assert DataRequest.objects.get(pk=request.pk).notification == "pending"
    finally:
        copy.join(10)
    assert mail.outbox == []
    assert services.data_request_notify(request_id=request.pk) == "sent"
    DataRequest.objects.filter(pk=request.pk).delete()
