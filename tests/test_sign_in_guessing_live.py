"""Guessing one account from 50 client addresses, every part real: 50 clients on addresses of
their own reach the sign-in page through nginx (deploy/nginx/proxy.conf), which the web process
trusts (ATRIUM_TRUSTED_PROXIES) and nobody else; past the ceiling password sign-in for the account
is paused, a Celery worker e-mails its owner over SMTP to a server on loopback, and the owner
signs in with the link, while the right password stays refused."""

import email
import os
import re
import secrets
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message

import httpx
import pytest
from aiosmtpd.controller import Controller
from axes.models import AccessAttempt
from django.conf import settings
from django_tenants.utils import schema_context

from apps.core.testing import (
    LiveServer,
    Process,
    database_url,
    free_port,
    start_celery_worker,
    start_nginx,
    start_web,
    wait_for,
)

pytestmark = pytest.mark.live

PASSWORD = "long-enough-password-7"
PAUSED = "Signing in with a password is paused"
CEILING = 30
ADDRESSES = 50
PER_ADDRESS = settings.AXES_FAILURE_LIMIT - 1  # each address stays below axes' own lockout


class Mailbox:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        self.messages.append(email.message_from_bytes(envelope.original_content or envelope.content))
        return "250 OK"


@dataclass
class Stack:
    proxy: Process
    web: LiveServer
    mailbox: Mailbox
    person: str

    def client(self, address: str) -> httpx.Client:
        """A browser on `address` (a loopback address of its own), talking to nginx."""
        transport = httpx.HTTPTransport(local_address=address)
        return httpx.Client(base_url=f"http://127.0.0.1:{self.proxy.port}", transport=transport, timeout=10)  # type: ignore[attr-defined]


@pytest.fixture
def stack(committed, tmp_path) -> Iterator[Stack]:  # type: ignore[no-untyped-def]
    from apps.accounts.models import Role, User

    person = f"guessed-{secrets.token_hex(4)}@acme.example"
    with schema_context("acme"):
        User.objects.create_user(email=person, password=PASSWORD, role=Role.objects.get(key="member"))
    mailbox = Mailbox()
    smtp = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    smtp.start()
    queue = f"test-guessing-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DATABASE_URL": database_url(),
        "DJANGO_SETTINGS_MODULE": "tests.settings_live_mail",
        "ATRIUM_TEST_SMTP_PORT": str(smtp.port),
        "ATRIUM_TEST_CELERY_QUEUE": queue,
        # nginx reaches the web process from 127.0.0.1; the clients are on 127.0.1.x.
        "ATRIUM_TRUSTED_PROXIES": "127.0.0.1",
        "ATRIUM_ACCOUNTS_GUESSES_CEILING": str(CEILING),
        # Not slowed before the ceiling here (its spacing is apps/accounts/tests' concern).
        "ATRIUM_ACCOUNTS_GUESSES_SLOW_AFTER": str(CEILING),
    }
    worker = start_celery_worker(env, tmp_path, "guessing", queues=queue)
    web = start_web(env, log=tmp_path / "web.log")
    proxy = start_nginx([web.port], tmp_path / "nginx")
    try:
        yield Stack(proxy, web, mailbox, person)
    finally:
        proxy.stop()
        web.stop()
        worker.stop()
        smtp.stop()
        with schema_context("acme"):
            AccessAttempt.objects.filter(username=person).delete()
            User.objects.filter(email=person).delete()


def sign_in(client: httpx.Client, email_address: str, password: str) -> httpx.Response:
    if "atrium_csrf" not in client.cookies:
        client.get("/accounts/sign-in/")
    return client.post(
        "/accounts/sign-in/",
        data={
            "username": email_address,
            "password": password,
            "csrfmiddlewaretoken": client.cookies["atrium_csrf"],
        },
    )


def body_of(message: Message) -> str:
    payload = message.get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload.decode()


def test_guessing_one_account_from_50_addresses_behind_the_proxy_is_stopped_and_its_owner_signs_in(stack):
    statuses = []
    for n in range(1, ADDRESSES + 1):
        with stack.client(f"127.0.1.{n}") as browser:
            statuses += [
                sign_in(browser, stack.person, f"guess-{n}-{k}").status_code for k in range(PER_ADDRESS)
            ]

    assert statuses[:CEILING] == [200] * CEILING
    assert set(statuses[CEILING:]) == {429}
    # Each client was counted under its own address, as the proxy forwarded it.
    with schema_context("acme"):
        counted = set(
            AccessAttempt.objects.filter(username=stack.person).values_list("ip_address", flat=True)
        )
    assert counted == {f"127.0.1.{n}" for n in range(1, -(-CEILING // PER_ADDRESS) + 1)}

    # The owner is told over SMTP, by the worker.
    notice = wait_for(
        lambda: [m for m in stack.mailbox.messages if m["To"] == stack.person], 60, what="the notice"
    )[0]
    assert notice["Subject"] == "Acme Workspace: signing in with your password is paused"
    text = body_of(notice)
    assert f"{CEILING} wrong passwords were given for {stack.person}" in text
    link = re.search(r"http://127\.0\.0\.1:\d+(/accounts/sign-in-link/\S+/\S+/)", text)
    assert link is not None, text

    with stack.client("127.0.1.200") as owner:
        refused = sign_in(owner, stack.person, PASSWORD)
        assert refused.status_code == 429 and PAUSED in refused.text
        opened = owner.get(link.group(1))
        assert opened.status_code == 200 and f"Sign in as {stack.person}" in opened.text
        signed = owner.post(link.group(1), data={"csrfmiddlewaretoken": owner.cookies["atrium_csrf"]})
        assert signed.status_code == 302 and signed.headers["location"] == "/settings/"
        assert owner.get("/settings/").status_code == 200


def test_a_client_reaching_the_web_process_directly_is_counted_under_its_own_address(stack):
    direct = httpx.Client(
        base_url=stack.web.url(), transport=httpx.HTTPTransport(local_address="127.0.1.77"), timeout=10
    )
    with direct:
        direct.get("/accounts/sign-in/")
        answer = direct.post(
            "/accounts/sign-in/",
            data={
                "username": stack.person,
                "password": "guess",
                "csrfmiddlewaretoken": direct.cookies["atrium_csrf"],
            },
            headers={"X-Forwarded-For": "203.0.113.50"},
        )

    assert answer.status_code == 200
    with schema_context("acme"):
        assert list(
            AccessAttempt.objects.filter(username=stack.person).values_list("ip_address", flat=True)
        ) == ["127.0.1.77"]
