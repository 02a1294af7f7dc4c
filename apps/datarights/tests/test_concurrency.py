"""Copies of one request arriving at the same moment, each in its own transaction and database
connection (committed, as in production), are still one request notified once."""

import threading
import uuid

from django.core import mail
from django.db import connection

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
