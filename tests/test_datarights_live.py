"""The data-rights request end to end, every part real: a web process on loopback answers the request,
PostgreSQL stores it, Redis carries the task to a Celery worker, the worker sends the data team's
e-mail to an SMTP server on loopback. The logs of both processes carry no personal data."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller

from apps.core.testing import ROOT, database_url, free_port, wait_for

pytestmark = pytest.mark.live

SECRET = "live-secret-" + uuid.uuid4().hex
DATA_TEAM = "data-desk@atrium.invalid"
PERSON = {
    "name": "Bartholomew Quince",
    "email": "b.quince@example.net",
    "account": "acct-quince-551",
    "details": "I object to the processing of my data for marketing.",
}


class Mailbox:
    def __init__(self) -> None:
        self.messages: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        self.messages.append((list(envelope.rcpt_tos), envelope.original_content or envelope.content))
        return "250 OK"


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_a_request_over_http_reaches_the_data_team_through_the_worker(django_db_setup, committed, tmp_path):
    import httpx

    from apps.datarights.models import DataRequest

    mailbox = Mailbox()
    smtp_port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "tests.settings_live_mail",
        "DATA_REQUEST_SHARED_SECRET": SECRET,
        "DATA_TEAM_EMAIL": DATA_TEAM,
        "ATRIUM_TEST_SMTP_PORT": str(smtp_port),
        "ATRIUM_TEST_CELERY_QUEUE": f"test-datarights-{uuid.uuid4().hex[:8]}",
        # What production logs.
        "ATRIUM_LOG_LEVEL": "INFO",
    }
    bin_dir = Path(sys.executable).parent
    port = free_port()
    worker_log, web_log = tmp_path / "worker.log", tmp_path / "web.log"
    worker = start(
        [
            str(bin_dir / "celery"),
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "--without-mingle",
            "--without-gossip",
            "--without-heartbeat",
            "--loglevel=INFO",
            "-Q",
            env["ATRIUM_TEST_CELERY_QUEUE"],
        ],
        env,
        worker_log,
    )
    web = start(
        [sys.executable, "-m", "config.serve", "--bind", "127.0.0.1", "--port", str(port)],
        env,
        web_log,
    )
    reference = None
    try:
        wait_for(lambda: " ready." in worker_log.read_text(errors="replace"), 60, what="the worker")
        base = f"http://127.0.0.1:{port}"

        def up() -> bool:
            try:
                return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(up, 30, what="the web process")
        body = {
            "kind": "data_rights_request",
            "type": "object",
            **PERSON,
            "locale": "en-US",
            "country": "US",
            "received_at": "2025-05-02T16:04:00Z",
        }
        with httpx.Client(base_url=base, timeout=10) as client:
            accepted = client.post(
                "/api/data-request", json=body, headers={"Authorization": f"Bearer {SECRET}"}
            )
            refused = client.post("/api/data-request", json=body, headers={"Authorization": "Bearer nope"})
            invalid = client.post(
                "/api/data-request",
                json={**body, "country": "XX"},
                headers={"Authorization": f"Bearer {SECRET}"},
            )

        assert accepted.status_code == 202, accepted.text
        reference = accepted.json()["reference"]
        assert accepted.json()["status"] == "accepted"
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "UNAUTHENTICATED"
        assert invalid.status_code == 422 and list(invalid.json()["error"]["details"]) == ["country"]

        wait_for(lambda: mailbox.messages, 30, what="the data team's e-mail")
        recipients, raw = mailbox.messages[0]
        assert recipients == [DATA_TEAM]
        assert reference.encode() in raw
        wait_for(
            lambda: DataRequest.objects.get(reference=reference).notification == "sent",
            10,
            what="the sent state",
        )
        stored = DataRequest.objects.get(reference=reference)
        assert (stored.host, stored.workspace.schema_name) == (f"127.0.0.1:{port}", "acme")
    finally:
        stop(web)
        stop(worker)
        controller.stop()
        DataRequest.objects.filter(host=f"127.0.0.1:{port}").delete()

    logs = web_log.read_text(errors="replace") + worker_log.read_text(errors="replace")
    assert f"data-rights request {reference} accepted" in logs
    assert f"data-rights request {reference}: data team notified" in logs
    for value in [*PERSON.values(), DATA_TEAM, SECRET]:
        assert value not in logs
