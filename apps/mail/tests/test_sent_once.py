"""A tool that sent an e-mail and then lost its transaction to a deadlock is not run again: the
catalogue's dispatcher runs a lost write once more only when nothing left the service
(apps.core.outbound.reached), so the recipient gets the message once and the caller is told."""

import uuid
from typing import Annotated

import pytest
from django.db import connection
from pydantic import Field

from apps.catalogue.registry import tool
from apps.catalogue.shapes import Done
from apps.catalogue.testing import call, structured, temporary_tools, text_of
from apps.core import outbound
from apps.mail import services
from apps.mail.models import Draft, Mailbox
from apps.mail.permissions import MailPerm
from apps.mail.tests.test_mail_tools import inbox_of

pytestmark = pytest.mark.usefixtures("mail_server")

RUNS: list[str] = []


def _deadlock() -> None:
    with connection.cursor() as cursor:
        cursor.execute("DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END $$")


@tool("sendThenDeadlock", permission=MailPerm.SEND, title="Send then deadlock", register_it=False)
def send_then_deadlock(ctx, *, to: Annotated[str, Field(description="The recipient")]) -> Done:
    """Sends a message through the mail app, then its first run is a deadlock's victim."""
    mailbox = Mailbox.objects.get(address=ctx.actor.email)
    draft = services.draft_save(actor=ctx.actor, mailbox=mailbox, to=[to], subject="Once", body="Hello")
    services.draft_send(actor=ctx.actor, draft=draft)
    RUNS.append(to)
    if len(RUNS) == 1:
        _deadlock()
    return Done(message=f"run {len(RUNS)}")


@tool("writeThenDeadlock", permission=MailPerm.EDIT, title="Write then deadlock", register_it=False)
def write_then_deadlock(ctx, *, subject: Annotated[str, Field(description="A subject")]) -> Done:
    """Writes a draft, then its first run is a deadlock's victim: nothing left the service."""
    mailbox = Mailbox.objects.get(address=ctx.actor.email)
    services.draft_save(actor=ctx.actor, mailbox=mailbox, subject=subject)
    RUNS.append(subject)
    if len(RUNS) == 1:
        _deadlock()
    return Done(message=f"run {len(RUNS)}")


def test_a_tool_that_sent_mail_then_lost_a_deadlock_is_not_run_again(people, mail_server):
    RUNS.clear()
    recipient = f"once-{uuid.uuid4().hex[:8]}@acme.example"
    with temporary_tools(send_then_deadlock):
        result = call(people["owner"], "sendThenDeadlock", {"to": recipient})

    assert result["isError"] is True
    assert text_of(result).startswith("sendThenDeadlock reached outside the service (SMTP)")
    assert "it was not run again" in text_of(result)
    assert len(RUNS) == 1 and RUNS[0] == recipient
    assert len(inbox_of(mail_server, recipient)) == 1
    assert not Draft.objects.filter(to=[recipient]).exists()


def test_a_tool_that_only_wrote_is_still_run_once_more(people):
    RUNS.clear()
    subject = f"kept-{uuid.uuid4().hex[:8]}"
    with temporary_tools(write_then_deadlock):
        result = call(people["owner"], "writeThenDeadlock", {"subject": subject})

    assert structured(result)["message"] == "run 2"
    assert Draft.objects.filter(subject=subject).count() == 1


def test_what_left_is_told_only_to_the_block_that_watches():
    outbound.reached("SMTP")  # nobody watches: nothing is kept
    with outbound.watched() as outer:
        outbound.reached("stored API")
        with outbound.watched() as inner:
            outbound.reached("SMTP")
        assert inner == ["SMTP"]
    assert outer == ["stored API"]
