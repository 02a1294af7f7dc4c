"""The client portal's tools: inviting a contact (accepted by the workspace's e-mailed invitation
link), a member's request an admin approves, revoking (their sessions end at once), the summary;
who may (owners and admins manage, members ask and see, viewers nothing); what may be shared with
a portal user; and their place in a person's export and erasure."""

import re
import secrets
from urllib.parse import urlsplit

import pytest
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client

from apps.accounts.models import PORTAL_ROLE, Role, User
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.contacts.tests.factories import ContactFactory
from apps.core import privacy
from apps.core.workspaces import current_workspace
from apps.documents.tests.factories import DocumentFactory
from apps.platform.models import PortalUser
from config.celery import app as celery_app

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
NEW = "quiet-harbour-lantern-42"


@pytest.fixture
def eager_tasks():  # type: ignore[no-untyped-def]
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


def client_contact(owner: User, **fields: str):  # type: ignore[no-untyped-def]
    tag = secrets.token_hex(4)
    return ContactFactory(
        actor=owner,
        first_name=fields.get("first_name", f"Client {tag}"),
        email=fields.get("email", f"client-{tag}@example.com"),
    )


def accept(message: mail.EmailMessage) -> Client:
    """The invited person opens the e-mailed link, chooses a password, and is signed in."""
    [link] = re.findall(r"https?://\S+", message.body)
    browser = Client(HTTP_HOST="127.0.0.1")
    opened = browser.get(urlsplit(link).path)
    assert opened.status_code == 302
    done = browser.post(opened["Location"], {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302
    return browser


def test_an_admin_invites_a_contact_who_accepts_and_lands_on_the_portal(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    contact = client_contact(people["owner"])
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        answer = ok(people["admin"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)

    row = PortalUser.objects.get(pk=answer["portalUser"]["id"])
    assert answer["changed"] is True
    assert answer["portalUser"]["state"] == "invited" and answer["portalUser"]["email"] == contact.email
    assert answer["portalUser"]["contact"] == {"id": contact.pk, "name": contact.display_name}
    assert row.user.role.key == PORTAL_ROLE and row.user.is_active and not row.user.has_usable_password()
    # The portal role grants nothing: no tool, no area.
    assert row.user.role.granted_permissions() == frozenset()
    [message] = mail.outbox
    assert message.to == [contact.email] and "invited you to" in message.body

    browser = accept(message)

    landed = browser.get("/", follow=True)
    assert landed.redirect_chain[-1][0] == "/portal/" and landed.status_code == 200
    assert ok(people["admin"], "listPortalUsers", {"state": "active"})["items"][0]["id"] == row.pk
    # The link works once.
    [link] = re.findall(r"https?://\S+", message.body)
    again = Client(HTTP_HOST="127.0.0.1").get(urlsplit(link).path)
    assert 'data-testid="invalid-link"' in again.content.decode()


def test_a_members_request_waits_for_an_admins_approval(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    contact = client_contact(people["owner"])
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        asked = ok(people["member"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)

    assert asked["portalUser"]["state"] == "requested" and mail.outbox == []
    user = User.objects.get(email=contact.email)
    assert not user.is_active
    # Nobody signs in with a request, nor is it someone to share with.
    with pytest.raises(ToolNotFound):
        call(people["member"], "approvePortalUser", {"portalUserId": asked["portalUser"]["id"]}, **CONFIRM)

    with django_capture_on_commit_callbacks(execute=True):
        approved = ok(
            people["admin"], "approvePortalUser", {"portalUserId": asked["portalUser"]["id"]}, **CONFIRM
        )

    assert approved["changed"] is True and approved["portalUser"]["state"] == "invited"
    [message] = mail.outbox
    assert message.to == [contact.email]
    # Approving again changes nothing and sends nothing.
    with django_capture_on_commit_callbacks(execute=True):
        again = ok(
            people["admin"], "approvePortalUser", {"portalUserId": asked["portalUser"]["id"]}, **CONFIRM
        )
    assert again["changed"] is False and len(mail.outbox) == 1


def test_who_sees_and_who_manages_the_portal(people):
    contact = client_contact(people["owner"])
    row_id = ok(people["owner"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)["portalUser"]["id"]

    # Members see the portal's users and its summary; viewers neither.
    assert [item["id"] for item in ok(people["member"], "listPortalUsers")["items"]] == [row_id]
    assert ok(people["member"], "getPortalSummary")["invited"] == 1
    for name, arguments in (
        ("listPortalUsers", {}),
        ("getPortalSummary", {}),
        ("invitePortalUser", {"contactId": contact.pk}),
    ):
        with pytest.raises(ToolNotFound):
            call(people["viewer"], name, arguments, **CONFIRM)
    for name in ("approvePortalUser", "revokePortalUser"):
        with pytest.raises(ToolNotFound):
            call(people["member"], name, {"portalUserId": row_id}, **CONFIRM)


def test_the_words_of_a_search_each_narrow_it_however_many_there_are(people):
    contact = client_contact(people["owner"])
    row_id = ok(people["owner"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)["portalUser"]["id"]
    first, *_ = contact.email.split("@")

    # A word of the address and one of nobody's: nothing; the address's alone: the one user.
    assert ok(people["member"], "listPortalUsers", {"query": f"{first} zzqx"})["items"] == []
    assert [item["id"] for item in ok(people["member"], "listPortalUsers", {"query": first})["items"]] == [
        row_id
    ]
    # A hundred words make a query of ten conditions (a query that doubled with each word never ended).
    answer = ok(people["member"], "listPortalUsers", {"query": " ".join([first] * 100)[:200]})
    assert [item["id"] for item in answer["items"]] == [row_id]


def test_bad_input_is_refused_and_writes_nothing(people):
    nameless = ContactFactory(actor=people["owner"], first_name="No Address", email="")
    before = (PortalUser.objects.count(), User.objects.count())

    assert "has no e-mail address" in refused(
        people["admin"], "invitePortalUser", {"contactId": nameless.pk}, **CONFIRM
    )
    assert "not a valid e-mail address" in refused(
        people["admin"], "invitePortalUser", {"contactId": nameless.pk, "email": "not-an-address"}, **CONFIRM
    )
    assert "searchContacts" in refused(
        people["admin"], "invitePortalUser", {"contactId": 987654321}, **CONFIRM
    )
    # An address already someone's in the workspace.
    assert "already" in refused(
        people["admin"],
        "invitePortalUser",
        {"contactId": nameless.pk, "email": "member@acme.example"},
        **CONFIRM,
    )
    assert "listPortalUsers" in refused(
        people["admin"], "revokePortalUser", {"portalUserId": 987654321}, **CONFIRM
    )
    assert (PortalUser.objects.count(), User.objects.count()) == before

    contact = client_contact(people["owner"])
    ok(people["admin"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)
    assert "already has portal user" in refused(
        people["admin"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM
    )


def test_revoking_ends_their_sessions_at_once_and_a_revoked_user_is_not_approved_again(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    contact = client_contact(people["owner"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        row_id = ok(people["admin"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)["portalUser"][
            "id"
        ]
    browser = accept(mail.outbox[-1])
    assert browser.get("/portal/").status_code == 200
    user = User.objects.get(email=contact.email)
    assert Session.objects.exists()

    answer = ok(people["admin"], "revokePortalUser", {"portalUserId": row_id}, **CONFIRM)

    assert answer["changed"] is True and answer["portalUser"]["state"] == "revoked"
    after = browser.get("/portal/")
    assert after.status_code == 302 and "/accounts/sign-in/" in after["Location"]
    user.refresh_from_db()
    assert not user.is_active
    # Their password no longer signs them in.
    signed = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR="2001:db8::" + secrets.token_hex(2))
    assert signed.post("/accounts/sign-in/", {"username": contact.email, "password": NEW}).status_code == 200
    assert ok(people["admin"], "revokePortalUser", {"portalUserId": row_id}, **CONFIRM)["changed"] is False
    assert "revoked" in refused(people["admin"], "approvePortalUser", {"portalUserId": row_id}, **CONFIRM)
    summary = ok(people["owner"], "getPortalSummary")
    assert summary["revoked"] == 1 and summary["active"] == 0


def test_only_documents_and_files_are_shared_with_a_portal_user_and_only_to_read(people):
    contact = client_contact(people["owner"])
    ok(people["owner"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)
    document = DocumentFactory(actor=people["owner"], title="Proposal for the client")

    assert ok(
        people["owner"],
        "shareDocument",
        {"documentId": document.pk, "personEmail": contact.email, "access": "view"},
    )
    assert "client portal user" in refused(
        people["owner"],
        "shareDocument",
        {"documentId": document.pk, "personEmail": contact.email, "access": "edit"},
    )
    other = client_contact(people["owner"])
    assert "may not use this area" in refused(
        people["owner"],
        "shareContact",
        {"contactId": other.pk, "personEmail": contact.email, "access": "view"},
    )
    summary = ok(people["owner"], "getPortalSummary")
    assert summary["sharedDocuments"] == 1 and summary["sharedFiles"] == 0
    listed = ok(people["owner"], "listPortalUsers")["items"]
    assert listed[0]["sharedItems"] == 1


def test_a_portal_user_is_no_role_to_hand_out(people):
    contact = client_contact(people["owner"])
    ok(people["owner"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)
    user = User.objects.get(email=contact.email)

    assert "portal" in refused(
        people["owner"], "updateUserRole", {"userId": user.pk, "role": "member"}, **CONFIRM
    )
    assert "portal" in refused(
        people["owner"], "updateUserRole", {"userId": people["viewer"].pk, "role": PORTAL_ROLE}, **CONFIRM
    )
    assert "portal" in refused(people["owner"], "deactivateWorkspaceUser", {"userId": user.pk}, **CONFIRM)
    assert Role.objects.get(key=PORTAL_ROLE).users.get() == user


def test_the_contacts_export_and_erasure_take_their_portal_user(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    contact = client_contact(people["owner"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        ok(people["owner"], "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)
    browser = accept(mail.outbox[-1])
    [handler] = [handler for handler in privacy.handlers() if handler.label == "platform.portaluser"]
    subject = privacy.Subject(email=contact.email, user=None, workspace=current_workspace())

    [exported] = handler.export(subject)
    assert exported["contact_id"] == contact.pk
    assert not {"requested_by", "requested_by_id", "approved_by_id"} & set(exported)

    assert handler.soft_delete(subject) == 1
    assert browser.get("/portal/").status_code == 302
    assert not User.objects.get(email=contact.email).is_active
    assert handler.erase(subject) == 1
    assert not PortalUser.objects.filter(contact=contact).exists()
