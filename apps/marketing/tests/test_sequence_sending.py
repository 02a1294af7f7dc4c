"""An e-mail sequence sent through the mail app to the real local mail server (the test process's
own SMTP submission and IMAP): three steps to 20 enrolled contacts, each step on time; one contact
replies in the thread and leaves, one unsubscribes by the one-click header and leaves; a worker
that dies after sending, and a mail server that goes down mid-step, send nobody a step twice. Then
the goal (a lifecycle stage), a condition on the step before, and explicit re-enrolment."""

import imaplib
import time
from collections.abc import Iterator
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.test import override_settings
from django.utils import timezone

from apps.catalogue.testing import confirmed, ok, refused
from apps.contacts.models import Contact
from apps.mail import demo, servers, suppression
from apps.mail.models import Outgoing
from apps.mail.testing import inbox_of, using_local_server
from apps.mail.tests.factories import mailbox
from apps.marketing import sequences
from apps.marketing.models import EmailSequence, Enrollment, MarketingSettings, StepSend
from apps.marketing.tests.factories import BROWSER, consenting, postal_address, segment, tag

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
STEPS = [
    {
        "subject": "Welcome",
        "body": "Hello {first_name}, start here: https://shop.example.org/start",
    },
    {"subject": "Tips", "body": "Two tips for your first week.", "delayHours": 48},
    {"subject": "An offer", "body": "10% off this week: https://shop.example.org/offer", "delayHours": 96},
]


@pytest.fixture(scope="module")
def mail_server() -> Iterator[dict[str, str]]:
    with using_local_server() as env:
        yield env


def no_quiet_hours() -> None:
    settings = MarketingSettings.current()
    settings.quiet_start = settings.quiet_end = 0
    settings.save()


def live(sequence_id: int) -> EmailSequence:
    return EmailSequence.objects.select_related("mailbox").get(pk=sequence_id)


def arrives(box, message) -> None:
    with servers.imap(box) as client:
        client.append("INBOX", "", imaplib.Time2Internaldate(time.time()), message.as_bytes())


def test_a_three_step_sequence_to_20_contacts_exits_on_reply_and_unsubscribe_and_sends_nothing_twice(
    people, mail_server, acme_client
):
    admin = people["admin"]
    postal_address("Acme Ltd, 1 Market Street, Leeds LS1 1AA, UK")
    no_quiet_hours()
    label = f"q{tag()}"
    contacts = consenting(admin, 20, label=label)
    box = mailbox(admin)
    made = ok(
        admin,
        "createEmailSequence",
        {"sequence": {"name": f"Onboarding {label}", "steps": STEPS, "mailboxId": box.pk}},
    )
    audience = segment(admin, rules=[{"field": "tags", "op": "has", "value": label}])
    enrolled = ok(
        admin, "enrollInEmailSequence", {"sequenceId": made["id"], "segmentId": audience.pk}, **ELICIT
    )
    assert (enrolled["members"], enrolled["enrolled"], enrolled["skippedByReason"]) == (20, 20, {})
    ok(admin, "activateEmailSequence", {"sequenceId": made["id"]}, **ELICIT)

    start = timezone.now()
    assert sequences.tick(live(made["id"]), now=start) == 20
    first = inbox_of(mail_server, contacts[5].email)
    assert [message["Subject"] for message in first] == ["Welcome"]
    message = first[0]
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text = message.get_body(preferencelist=("plain",)).get_content()
    unsubscribe = str(message["List-Unsubscribe"]).strip("<>")
    assert "Acme Ltd, 1 Market Street" in text and unsubscribe in text
    assert "https://shop.example.org/start" not in text  # tracked
    # Not due yet: nothing goes before its 48 hours.
    assert sequences.tick(live(made["id"]), now=start + timedelta(hours=47)) == 0

    # Contact 0 replies in the thread of the first step; contact 1 unsubscribes from the header.
    to_first = StepSend.objects.get(enrollment__sequence_id=made["id"], email=contacts[0].email, step=0)
    answer = demo._message(
        sender=contacts[0].email, to=box.address, subject="Re: Welcome", text="Call me", days_ago=0
    )
    answer["In-Reply-To"] = to_first.message_id
    arrives(box, answer)
    header = str(inbox_of(mail_server, contacts[1].email)[0]["List-Unsubscribe"]).strip("<>")
    assert acme_client.post(urlsplit(header).path, {"List-Unsubscribe": "One-Click"}).status_code == 200
    assert suppression.is_suppressed(contacts[1].email)
    # A click on the first step's tracked link is the step's.
    tracked = next(word for word in text.split() if "/m/c/" in word)
    answer = acme_client.get(urlsplit(tracked).path, **BROWSER)
    assert answer.status_code == 302 and answer["Location"] == "https://shop.example.org/start"

    assert sequences.tick(live(made["id"]), now=start + timedelta(hours=49)) == 18
    states = dict(Enrollment.objects.filter(sequence_id=made["id"]).values_list("email", "state"))
    assert states[contacts[0].email] == "replied" and states[contacts[1].email] == "unsubscribed"
    assert sum(state == "active" for state in states.values()) == 18

    # A worker dies after sending step 2 to contact 7 and before moving them on: the next run
    # finds the step's row and moves on, sending nothing.
    crashed = Enrollment.objects.get(sequence_id=made["id"], email=contacts[7].email)
    Enrollment.objects.filter(pk=crashed.pk).update(next_step=1, next_due_at=start)
    assert sequences.tick(live(made["id"]), now=start + timedelta(hours=50)) == 0
    crashed.refresh_from_db()
    assert crashed.next_step == 2 and crashed.state == "active"

    # The mail server goes down during step 3: the run stops; back up, each goes once, the
    # failed one with its Message-ID.
    later = start + timedelta(hours=24 * 7)
    with override_settings(ATRIUM_MAIL_LOCAL_SMTP="127.0.0.1:1"):
        assert sequences.tick(live(made["id"]), now=later) == 0
    failed = StepSend.objects.get(enrollment__sequence_id=made["id"], step=2, outgoing__isnull=False)
    assert failed.outgoing.status == Outgoing.Status.FAILED
    assert sequences.tick(live(made["id"]), now=later) == 18
    assert sequences.tick(live(made["id"]), now=later + timedelta(days=30)) == 0
    assert inbox_of(mail_server, failed.email)[-1]["Message-ID"] == failed.message_id

    subjects = [[m["Subject"] for m in inbox_of(mail_server, contact.email)] for contact in contacts]
    assert subjects[0] == subjects[1] == ["Welcome"]
    assert all(found == ["Welcome", "Tips", "An offer"] for found in subjects[2:])
    detail = ok(admin, "getEmailSequence", {"sequenceId": made["id"]})
    figures = detail["figures"]
    assert figures["enrollments"]["completed"] == 18 and figures["enrollments"]["replied"] == 1
    assert figures["enrollments"]["unsubscribed"] == 1 and figures["sent"] == 20 + 18 + 18
    assert figures["sentByStep"] == [20, 18, 18] and figures["unsubscribes"] == 1
    assert figures["uniqueClicks"] == 1
    # Re-enrolment is explicit.
    said = refused(admin, "enrollInEmailSequence", {"sequenceId": made["id"], "contactIds": [contacts[3].pk]})
    assert "left_completed" in said
    again = ok(
        admin,
        "enrollInEmailSequence",
        {"sequenceId": made["id"], "contactIds": [contacts[3].pk], "again": True},
    )
    assert again["enrolled"] == 1
    row = Enrollment.objects.get(sequence_id=made["id"], email=contacts[3].email)
    assert (row.state, row.round, row.next_step) == ("active", 2, 0)


def test_the_goal_and_a_condition_on_the_step_before(people, mail_server):
    admin = people["admin"]
    postal_address()
    no_quiet_hours()
    label = f"g{tag()}"
    contacts = consenting(admin, 3, label=label, lifecycle_stage="lead")
    made = sequences.sequence_create(
        actor=admin,
        fields={
            "name": f"Trial {label}",
            "goal_stage": "customer",
            "mailbox_id": mailbox(admin).pk,
            "steps": [
                {"subject": "Try it", "body": "https://example.org/try"},
                {"subject": "Since you clicked", "body": "More.", "delayHours": 1, "condition": "clicked"},
                {"subject": "Last", "body": "Bye.", "delayHours": 1},
            ],
        },
    )
    sequences.enroll(actor=admin, sequence=made, contact_ids=[c.pk for c in contacts], segment=None)
    sequences.sequence_activate(actor=admin, sequence=made, active=True)
    start = timezone.now()
    assert sequences.tick(live(made.pk), now=start) == 3
    StepSend.objects.filter(email=contacts[0].email, step=0).update(clicked_at=start)
    Contact.objects.filter(pk=contacts[2].pk).update(lifecycle_stage="customer")
    assert sequences.tick(live(made.pk), now=start + timedelta(hours=2)) == 1  # only who clicked
    states = dict(Enrollment.objects.filter(sequence=made).values_list("email", "state"))
    assert states[contacts[2].email] == "goal"
    skipped = StepSend.objects.get(email=contacts[1].email, step=1)
    assert skipped.state == "skipped" and skipped.outgoing_id is None
    assert sequences.tick(live(made.pk), now=start + timedelta(hours=4)) == 2
    assert [m["Subject"] for m in inbox_of(mail_server, contacts[1].email)] == ["Try it", "Last"]
    assert [m["Subject"] for m in inbox_of(mail_server, contacts[0].email)] == [
        "Try it",
        "Since you clicked",
        "Last",
    ]
    assert sequences.figures(made)["conversions"] == 1
