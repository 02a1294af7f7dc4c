"""A person's own password: changed on /settings/password/, or set again from a link e-mailed by
the sign-in page's "Forgot your password?" (Django's e-mail backend: the locmem outbox here)."""

import re
import secrets
from datetime import datetime, timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core import mail
from django.core.cache import cache
from django.test import Client
from django_tenants.utils import schema_context

from apps.accounts import throttle
from apps.accounts.models import Role, User

pytestmark = pytest.mark.django_db

PASSWORD = "atrium-demo"
NEW = "quiet-harbour-lantern-42"
LIMIT = settings.AXES_FAILURE_LIMIT
SAME_ANSWER = "If the address belongs to someone at"


def new_address() -> str:
    """A client address of this test's own: the reset form counts per client in the real Redis."""
    return "2001:db8::" + ":".join(secrets.token_hex(2) for _ in range(4))


def new_email() -> str:
    return f"reset-{secrets.token_hex(4)}@acme.example"


@pytest.fixture
def person(acme) -> User:
    """A member of Acme with an address of this test's own (the per-address count is in Redis)."""
    return User.objects.create_user(
        email=new_email(), password=PASSWORD, full_name="Rita Reset", role=Role.objects.get(key="member")
    )


@pytest.fixture
def client() -> Client:
    return Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address())


def signed_in(client: Client, user: User) -> Client:
    client.force_login(user)
    return client


def errors_of(response) -> str:  # type: ignore[no-untyped-def]
    # A field's error carries the id its field points at (aria-describedby); the form's has none.
    alerts = re.findall(r'<div class="error" role="alert"[^>]*>(.*?)</div>', response.content.decode())
    return " ".join(alerts)


# --- changing it, signed in ---------------------------------------------------------------------


def change(client: Client, old: str, new1: str, new2: str | None = None):  # type: ignore[no-untyped-def]
    return client.post(
        "/settings/password/",
        {"old_password": old, "new_password1": new1, "new_password2": new1 if new2 is None else new2},
    )


def test_the_password_page_asks_for_the_current_password_and_the_new_one_twice(client, person):
    body = signed_in(client, person).get("/settings/password/").content.decode()

    assert re.search(r"<label[^>]*>Current password</label>", body)
    assert re.search(r"<label[^>]*>New password</label>", body)
    assert re.search(r"<label[^>]*>New password again</label>", body)
    assert 'autocomplete="current-password"' in body and 'autocomplete="new-password"' in body
    # In the settings navigation, and linked from the profile.
    assert re.search(r'<a href="/settings/password/" aria-current="page">Password</a>', body)
    assert 'href="/settings/password/"' in client.get("/settings/").content.decode()


def test_the_password_page_is_for_signed_in_people(client):
    answer = client.get("/settings/password/")

    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/sign-in/")


def test_a_wrong_current_password_is_refused(client, person):
    answer = change(signed_in(client, person), "not-my-password", NEW)

    assert answer.status_code == 200
    assert "Your old password was entered incorrectly" in errors_of(answer)
    person.refresh_from_db()
    assert person.check_password(PASSWORD)


def test_wrong_current_passwords_count_towards_the_sign_in_lockout(client, person):
    signed_in(client, person)
    for _try in range(LIMIT - 1):
        assert change(client, "not-my-password", NEW).status_code == 200

    locked = change(client, "not-my-password", NEW)

    assert locked.status_code == 429 and "Retry-After" in locked
    # The right password does not get through while the lockout lasts.
    assert change(client, PASSWORD, NEW).status_code == 429
    person.refresh_from_db()
    assert person.check_password(PASSWORD)
    AccessAttempt.objects.filter(username=person.email).delete()


def test_two_different_new_passwords_are_refused(client, person):
    answer = change(signed_in(client, person), PASSWORD, NEW, NEW + "x")

    assert answer.status_code == 200
    assert "The two password fields didn\u2019t match." in errors_of(answer)
    person.refresh_from_db()
    assert person.check_password(PASSWORD)


@pytest.mark.parametrize(
    ("new", "says"),
    [
        ("short1", "This password is too short. It must contain at least 8 characters."),
        ("password123", "This password is too common."),
        ("83920174655", "This password is entirely numeric."),
    ],
)
def test_the_password_validators_apply(client, person, new, says):
    answer = change(signed_in(client, person), PASSWORD, new)

    assert answer.status_code == 200 and says in errors_of(answer)
    person.refresh_from_db()
    assert person.check_password(PASSWORD)


def test_a_new_password_keeps_the_person_signed_in_here_and_signs_out_elsewhere(person):
    here = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address())
    elsewhere = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address())
    for browser in (here, elsewhere):
        signing_in = browser.post("/accounts/sign-in/", {"username": person.email, "password": PASSWORD})
        assert signing_in.status_code == 302

    answer = change(here, PASSWORD, NEW)

    assert answer.status_code == 302 and answer["Location"] == "/settings/password/"
    followed = here.get(answer["Location"])
    assert followed.status_code == 200 and "Your password has been changed." in followed.content.decode()
    assert elsewhere.get("/settings/").status_code == 302
    person.refresh_from_db()
    assert person.check_password(NEW)
    fresh = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address())
    assert fresh.post("/accounts/sign-in/", {"username": person.email, "password": NEW}).status_code == 302


# --- reset by e-mail ----------------------------------------------------------------------------


def ask(client: Client, email: str):  # type: ignore[no-untyped-def]
    return client.post("/accounts/password-reset/", {"email": email})


def link_in(message: mail.EmailMessage) -> str:
    [link] = re.findall(r"https?://\S+", message.body)
    return link


def test_the_sign_in_page_links_to_the_reset_form(client):
    body = client.get("/accounts/sign-in/").content.decode()

    assert '<a href="/accounts/password-reset/">Forgot your password?</a>' in body
    form = client.get("/accounts/password-reset/").content.decode()
    assert re.search(r"<label[^>]*>Email</label>", form) and "Acme Workspace" in form
    assert "css/atrium.css" in form


def test_a_reset_link_is_mailed_with_the_workspaces_brand_and_its_own_host(client, person, eager_tasks):
    with schema_context("globex"):
        User.objects.create_user(email=person.email, password=PASSWORD, role=Role.objects.get(key="member"))
    mail.outbox.clear()

    answer = ask(client, person.email.upper())

    assert answer.status_code == 302 and answer["Location"] == "/accounts/password-reset/sent/"
    sent = client.get(answer["Location"]).content.decode()
    assert SAME_ANSWER in sent and "Acme Workspace" in sent
    [message] = mail.outbox
    assert message.to == [person.email]
    assert message.subject == "Acme Workspace: set a new password"
    assert message.content_subtype == "plain" and not getattr(message, "alternatives", None)
    assert "Acme Workspace" in message.body and message.from_email == settings.DEFAULT_FROM_EMAIL
    link = link_in(message)
    assert re.fullmatch(r"http://127\.0\.0\.1/accounts/password-reset/[\w-]+/[\w-]+/", link)
    # Asked at Globex's host, the same address gets Globex's link for Globex's person.
    mail.outbox.clear()
    at_globex = Client(HTTP_HOST="127.0.0.2", REMOTE_ADDR=new_address())
    assert ask(at_globex, person.email).status_code == 302
    [other] = mail.outbox
    assert other.subject == "Globex Hub: set a new password"
    assert link_in(other).startswith("http://127.0.0.2/accounts/password-reset/")


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, person, eager_tasks):
    mail.outbox.clear()
    known = ask(client, person.email)
    known_page = client.get(known["Location"]).content.decode()
    mail.outbox.clear()

    unknown = ask(client, new_email())

    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    assert client.get(unknown["Location"]).content.decode() == known_page
    assert mail.outbox == []


def test_a_deactivated_person_gets_no_mail(client, person, eager_tasks):
    person.is_active = False
    person.save()
    mail.outbox.clear()

    assert ask(client, person.email).status_code == 302
    assert mail.outbox == []


def test_a_malformed_address_is_said_on_the_form(client):
    answer = ask(client, "not an address")

    assert answer.status_code == 200 and "Enter a valid email address." in errors_of(answer)


def follow_link(client: Client, link: str):  # type: ignore[no-untyped-def]
    """Opens the e-mailed link: Django moves the token into the session and redirects."""
    path = link.removeprefix("http://127.0.0.1")
    answer = client.get(path)
    assert answer.status_code == 302 and answer["Location"].endswith("/set-password/")
    return answer["Location"]


def test_the_link_sets_a_new_password_once(client, person, eager_tasks):
    mail.outbox.clear()
    ask(client, person.email)
    link = link_in(mail.outbox[0])

    form_url = follow_link(client, link)
    page = client.get(form_url).content.decode()
    assert f"Set a new password for {person.email}" in page
    done = client.post(form_url, {"new_password1": NEW, "new_password2": NEW})

    assert done.status_code == 302 and done["Location"] == "/accounts/password-reset/done/"
    assert "Your new password is set." in client.get(done["Location"]).content.decode()
    person.refresh_from_db()
    assert person.check_password(NEW)
    # Used: the same link is refused, in this browser and in another.
    for browser in (client, Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address())):
        again = browser.get(link.removeprefix("http://127.0.0.1"))
        assert again.status_code == 200 and 'data-testid="invalid-link"' in again.content.decode()
    signed = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address())
    assert signed.post("/accounts/sign-in/", {"username": person.email, "password": NEW}).status_code == 302


def test_the_new_password_from_a_link_is_validated_too(client, person, eager_tasks):
    mail.outbox.clear()
    ask(client, person.email)
    form_url = follow_link(client, link_in(mail.outbox[0]))

    answer = client.post(form_url, {"new_password1": "short1", "new_password2": "short1"})

    assert answer.status_code == 200 and "This password is too short." in errors_of(answer)
    person.refresh_from_db()
    assert person.check_password(PASSWORD)


def test_an_expired_link_is_refused(client, person, eager_tasks, monkeypatch):
    mail.outbox.clear()
    ask(client, person.email)
    link = link_in(mail.outbox[0])
    later = datetime.now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 60)
    monkeypatch.setattr(PasswordResetTokenGenerator, "_now", lambda self: later)

    answer = client.get(link.removeprefix("http://127.0.0.1"))

    assert answer.status_code == 200
    assert "This link does not work (any more)" in answer.content.decode()
    assert 'href="/accounts/password-reset/"' in answer.content.decode()


@pytest.mark.parametrize(
    "path",
    [
        "/accounts/password-reset/MQ/bogus-token/",
        "/accounts/password-reset/not-base64!/x-y/",
        "/accounts/password-reset/OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5/abc-def/",
        "/accounts/password-reset/MQ/set-password/",
    ],
)
def test_an_invalid_link_says_so_and_never_fails(client, path):
    answer = client.get(path)

    assert answer.status_code == 200
    assert 'data-testid="invalid-link"' in answer.content.decode()
    assert client.post(path, {"new_password1": NEW, "new_password2": NEW}).status_code == 200


def test_a_link_for_an_acme_person_does_nothing_at_globex(client, person, eager_tasks):
    mail.outbox.clear()
    ask(client, person.email)
    path = link_in(mail.outbox[0]).removeprefix("http://127.0.0.1")

    answer = Client(HTTP_HOST="127.0.0.2", REMOTE_ADDR=new_address()).get(path)

    assert answer.status_code == 200 and 'data-testid="invalid-link"' in answer.content.decode()


def test_a_reset_ends_the_lockout_of_a_person_who_guessed_wrong(client, person, eager_tasks):
    for n in range(LIMIT):
        client.post("/accounts/sign-in/", {"username": person.email, "password": f"guess-{n}"})
    locked = client.post("/accounts/sign-in/", {"username": person.email, "password": PASSWORD})
    assert locked.status_code == 429
    assert 'href="/accounts/password-reset/"' in locked.content.decode()
    mail.outbox.clear()

    ask(client, person.email)
    form_url = follow_link(client, link_in(mail.outbox[0]))
    client.post(form_url, {"new_password1": NEW, "new_password2": NEW})

    assert not AccessAttempt.objects.filter(username=person.email).exists()
    answer = client.post("/accounts/sign-in/", {"username": person.email, "password": NEW})
    assert answer.status_code == 302 and answer["Location"] == "/settings/"


def test_the_form_sends_a_few_links_to_one_address_then_none_with_the_same_answer(person, eager_tasks):
    mail.outbox.clear()
    per_address = settings.ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_ADDRESS
    answers = [
        ask(Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address()), person.email)
        for _ in range(per_address + 2)
    ]

    assert {(answer.status_code, answer["Location"]) for answer in answers} == {
        (302, "/accounts/password-reset/sent/")
    }
    assert len(mail.outbox) == per_address


def test_one_client_is_refused_after_a_few_requests_whatever_the_addresses(client, eager_tasks):
    per_client = settings.ATRIUM_ACCOUNTS_PASSWORD_RESETS_PER_CLIENT
    answers = [ask(client, new_email()) for _ in range(per_client)]
    assert {answer.status_code for answer in answers} == {302}

    refused = ask(client, new_email())

    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many requests from here" in errors_of(refused)
    # Another client is not concerned.
    assert ask(Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=new_address()), new_email()).status_code == 302


def test_the_counters_hold_no_address_in_the_cache(client):
    request = client.get("/accounts/password-reset/").wsgi_request
    client_key, address_key = throttle.reset_keys(request, "Someone@Acme.example")

    assert "someone" not in address_key.lower() and "acme" not in address_key.lower()
    assert client_key != address_key
    assert throttle.reset_keys(request, " someone@acme.example")[1] == address_key
    cache.delete_many([client_key, address_key])
