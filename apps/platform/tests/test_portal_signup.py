"""The client portal, the rest: a revoked portal user invited again (the same row and sign-in,
with a new password), portal users kept out of the workspace's people (the People page,
listWorkspaceUsers, getWorkspaceSummary's count), and the sign-up page where a contact asks for
access: a request that waits for approvePortalUser, counted per client and per address, and the
same answer whether or not the address is known."""

import secrets

import pytest
from django.core import mail
from django.test import Client

from apps.accounts.models import PORTAL_ROLE, User
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, refused
from apps.contacts.tests.factories import ContactFactory
from apps.platform.models import PortalUser
from config.celery import app as celery_app

from .test_portal_tools import CONFIRM, NEW, accept, client_contact

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager_tasks():  # type: ignore[no-untyped-def]
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


def browser() -> Client:
    """Someone not signed in, from an address of their own (the pages count per client)."""
    return Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR="2001:db8::" + secrets.token_hex(2))


def signs_in(email: str, password: str) -> bool:
    answer = browser().post("/accounts/sign-in/", {"username": email, "password": password})
    return answer.status_code == 302


# --- invited again ------------------------------------------------------------------------------


def test_a_revoked_portal_user_is_invited_again_with_a_new_password(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    contact = client_contact(people["owner"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        row_id = ok(people["admin"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)["portalUser"][
            "id"
        ]
    accept(mail.outbox[-1])
    ok(people["admin"], "revokePortalUser", {"portalUserId": row_id}, **CONFIRM)
    assert "invitePortalUser" in refused(
        people["admin"], "approvePortalUser", {"portalUserId": row_id}, **CONFIRM
    )
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        again = ok(people["admin"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)

    assert again["portalUser"]["id"] == row_id and again["portalUser"]["state"] == "invited"
    assert again["portalUser"]["revokedAt"] is None
    assert PortalUser.objects.count() == 1 and User.objects.filter(email=contact.email).count() == 1
    # The old password no longer signs them in; the new invitation sets another.
    assert not signs_in(contact.email, NEW)
    [message] = mail.outbox
    assert message.to == [contact.email]
    assert accept(message).get("/portal/").status_code == 200
    assert ok(people["admin"], "listPortalUsers", {"state": "active"})["items"][0]["id"] == row_id


def test_a_members_invitation_of_a_revoked_user_waits_for_an_admin(people):
    contact = client_contact(people["owner"])
    row_id = ok(people["admin"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)["portalUser"]["id"]
    ok(people["admin"], "revokePortalUser", {"portalUserId": row_id}, **CONFIRM)

    asked = ok(people["member"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)["portalUser"]

    assert asked["id"] == row_id and asked["state"] == "requested"
    row = PortalUser.objects.select_related("user").get(pk=row_id)
    assert row.requested_by == people["member"] and row.approved_at is None and not row.user.is_active
    # Asked for again, it is not asked for twice; a viewer asks for nothing.
    assert "already has portal user" in refused(
        people["member"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM
    )
    with pytest.raises(ToolNotFound):
        call(people["viewer"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)


def test_a_revoked_address_given_for_another_contact_moves_to_it(people):
    first = client_contact(people["owner"])
    row_id = ok(people["admin"], "invitePortalUser", {"contactId": first.pk}, **CONFIRM)["portalUser"]["id"]
    ok(people["admin"], "revokePortalUser", {"portalUserId": row_id}, **CONFIRM)
    second = client_contact(people["owner"], email="")

    again = ok(
        people["admin"], "invitePortalUser", {"contactId": second.pk, "email": first.email.upper()}, **CONFIRM
    )["portalUser"]

    assert again["id"] == row_id and again["contact"]["id"] == second.pk
    # A person of the workspace is still not made a portal user.
    third = client_contact(people["owner"])
    assert "already in the workspace" in refused(
        people["admin"],
        "invitePortalUser",
        {"contactId": third.pk, "email": people["viewer"].email},
        **CONFIRM,
    )
    assert User.objects.get(email=people["viewer"].email).role.key == "viewer"


# --- not people of the workspace ----------------------------------------------------------------


def test_portal_users_are_not_listed_or_counted_among_the_workspaces_people(people, acme_client):
    contact = client_contact(people["owner"])
    ok(people["owner"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)
    portal_person = User.objects.get(email=contact.email)
    assert portal_person.is_active and portal_person.role.key == PORTAL_ROLE

    listed = ok(people["admin"], "listWorkspaceUsers", {"limit": 100, "includeInactive": True})
    assert contact.email not in {item["email"] for item in listed["items"]}
    assert ok(people["admin"], "listWorkspaceUsers", {"role": PORTAL_ROLE})["items"] == []
    count = ok(people["admin"], "getWorkspaceSummary")["people"]
    assert count == User.objects.filter(is_active=True).exclude(role__key=PORTAL_ROLE).count()
    acme_client.force_login(people["admin"])
    page = acme_client.get("/settings/people/").content.decode()
    assert people["viewer"].email in page and contact.email not in page
    # Changed as a person, they are still told where their access is managed.
    assert "portal" in refused(
        people["owner"], "deactivateWorkspaceUser", {"userId": portal_person.pk}, **CONFIRM
    )


# --- asking for access --------------------------------------------------------------------------


def test_a_contact_asks_for_access_and_an_admin_approves(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    contact = ContactFactory(
        actor=people["owner"],
        first_name="Asking",
        email=f"asking-{secrets.token_hex(4)}@example.com",
        visibility="workspace",
    )
    visitor = browser()
    assert 'href="/portal/ask/"' in visitor.get("/accounts/sign-in/").content.decode()
    assert visitor.get("/portal/ask/").status_code == 200
    mail.outbox.clear()

    answer = visitor.post("/portal/ask/", {"email": contact.email.upper(), "full_name": "Asking Person"})

    assert answer.status_code == 302 and answer["Location"] == "/portal/ask/sent/"
    row = PortalUser.objects.select_related("user").get(contact=contact)
    assert row.asked_by_themselves and row.requested_by is None and row.approved_at is None
    assert not row.user.is_active and row.user.full_name == "Asking Person" and mail.outbox == []
    listed = ok(people["member"], "listPortalUsers", {"state": "requested"})["items"]
    assert [(item["id"], item["askedByThemselves"]) for item in listed] == [(row.pk, True)]
    # Asking again changes nothing.
    browser().post("/portal/ask/", {"email": contact.email})
    assert PortalUser.objects.filter(contact=contact).count() == 1

    with django_capture_on_commit_callbacks(execute=True):
        ok(people["admin"], "approvePortalUser", {"portalUserId": row.pk}, **CONFIRM)

    [message] = mail.outbox
    assert message.to == [contact.email]
    assert accept(message).get("/portal/").status_code == 200


def test_the_page_answers_the_same_whoever_asks_and_writes_only_for_a_contact(people):
    private = ContactFactory(
        actor=people["member"], first_name="Private", email="private-client@example.com", visibility="private"
    )
    before = (PortalUser.objects.count(), User.objects.count())
    answers = []
    for email in ("nobody-known@example.com", people["viewer"].email, private.email):
        answer = browser().post("/portal/ask/", {"email": email})
        answers.append((answer.status_code, answer["Location"]))

    assert set(answers) == {(302, "/portal/ask/sent/")}
    assert (PortalUser.objects.count(), User.objects.count()) == before
    sent = browser().get("/portal/ask/sent/").content.decode()
    assert 'data-testid="portal-asked"' in sent and "If the address" in sent


def test_bad_input_is_refused_and_writes_nothing(people):
    before = (PortalUser.objects.count(), User.objects.count())
    for data in (
        {"email": "not-an-address"},
        {"email": ""},
        {"email": "a@example.com", "full_name": "x" * 151},
    ):
        answer = browser().post("/portal/ask/", data)
        assert answer.status_code == 200 and 'role="alert"' in answer.content.decode()
    assert browser().put("/portal/ask/").status_code == 405
    assert (PortalUser.objects.count(), User.objects.count()) == before


def test_asking_is_counted_per_client_and_per_address(people, settings):
    settings.ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_CLIENT = 2
    settings.ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_ADDRESS = 1
    contact = ContactFactory(
        actor=people["owner"],
        first_name="Counted",
        email=f"counted-{secrets.token_hex(4)}@example.com",
        visibility="workspace",
    )
    visitor = browser()
    for n in range(2):
        assert (
            visitor.post(
                "/portal/ask/", {"email": f"someone-{n}-{secrets.token_hex(3)}@example.com"}
            ).status_code
            == 302
        )

    refused_page = visitor.post("/portal/ask/", {"email": contact.email})

    assert refused_page.status_code == 429 and refused_page["Retry-After"]
    assert "Too many requests" in refused_page.content.decode()
    assert not PortalUser.objects.filter(contact=contact).exists()
    # An address asked for too often gets the same answer, and nothing more is written.
    address = f"twice-{secrets.token_hex(4)}@example.com"
    assert browser().post("/portal/ask/", {"email": address}).status_code == 302
    later = ContactFactory(actor=people["owner"], first_name="Later", email=address, visibility="workspace")
    assert browser().post("/portal/ask/", {"email": address}).status_code == 302
    assert not PortalUser.objects.filter(contact=later).exists()
