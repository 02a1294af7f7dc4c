"""Guessing one account from many client addresses (apps.accounts.throttle): axes locks one e-mail
address from one client address; past a ceiling of wrong passwords for the e-mail address from
every address, password sign-in for it is slowed, then paused, and its owner is told by e-mail
with a link that signs them in, so no stranger can lock a person out. Over Django's test client,
each client with an address of its own; tests/test_sign_in_guessing_live.py does it over real
HTTP behind a trusted proxy, with a worker and an SMTP server."""

import re
import secrets

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.test import Client

from apps.accounts import services, throttle
from apps.accounts.models import Role, User

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

PASSWORD = "atrium-demo"
WRONG = "The email or password is not right."
PAUSED = "Signing in with a password is paused"
CEILING = settings.ATRIUM_ACCOUNTS_GUESSES_CEILING
SLOW_AFTER = settings.ATRIUM_ACCOUNTS_GUESSES_SLOW_AFTER
AXES_LIMIT = settings.AXES_FAILURE_LIMIT


@pytest.fixture
def person(acme) -> User:
    """A member of Acme with an address of this test's own (the counts are in the real Redis)."""
    return User.objects.create_user(
        email=f"guessed-{secrets.token_hex(4)}@acme.example",
        password=PASSWORD,
        full_name="Gus Guessed",
        role=Role.objects.get(key="member"),
    )


def address(n: int) -> str:
    return f"2001:db8:{secrets.token_hex(2)}::{n:x}"


def browser(n: int = 0) -> Client:
    return Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR=address(n))


def sign_in(client: Client, email: str, password: str, **data: str):  # type: ignore[no-untyped-def]
    return client.post("/accounts/sign-in/", {"username": email, "password": password, **data})


def spacing_passes(email: str) -> None:
    """The seconds between two tries of a slowed address go by."""
    cache.delete(throttle._guess_key("slot", email))


def guess_from_many_addresses(email: str, addresses: int, per_address: int) -> list[int]:
    """Wrong passwords from `addresses` clients, `per_address` each (below axes' limit), the spacing
    of a slowed address let go by between them; the status of every answer."""
    statuses = []
    for n in range(addresses):
        client = browser(n)
        for k in range(per_address):
            spacing_passes(email)
            statuses.append(sign_in(client, email, f"guess-{n}-{k}").status_code)
    return statuses


def link_in(message: mail.EmailMessage) -> str:
    found = re.search(r"http://127\.0\.0\.1/accounts/sign-in-link/[^/\s]+/[^/\s]+/", message.body)
    assert found, message.body
    return found.group(0).removeprefix("http://127.0.0.1")


def is_signed_in(client: Client) -> bool:
    return client.get("/settings/").status_code == 200


def test_guessing_one_account_from_50_addresses_is_stopped_and_its_owner_told_and_signs_in(person):
    statuses = guess_from_many_addresses(person.email, addresses=50, per_address=AXES_LIMIT - 1)

    # Every wrong password up to the ceiling was checked and answered as usual; after it, none.
    assert statuses[:CEILING] == [200] * CEILING
    assert set(statuses[CEILING:]) == {429}
    # No pair reached axes' limit: without the ceiling, all 200 guesses would have been checked.
    assert (
        max(
            AccessAttempt.objects.filter(username=person.email).values_list("failures_since_start", flat=True)
        )
        < AXES_LIMIT
    )
    # The owner is told, once, with a link that signs them in.
    (notice,) = [message for message in mail.outbox if person.email in message.to]
    assert notice.subject == "Acme Workspace: signing in with your password is paused"
    clients = -(-CEILING // (AXES_LIMIT - 1))
    assert f"{CEILING} wrong passwords were given for {person.email}" in notice.body
    assert f"from {clients} different addresses" in notice.body
    assert "/accounts/password-reset/" in notice.body
    # The right password, from anywhere, gets the same paused page: the guesser learns nothing.
    owner = browser(99)
    paused = sign_in(owner, person.email, PASSWORD)
    assert paused.status_code == 429 and PAUSED in paused.content.decode()
    assert int(paused["Retry-After"]) == 60 * settings.ATRIUM_ACCOUNTS_GUESSES_WINDOW_MINUTES
    assert not is_signed_in(owner)
    # The owner signs in with the link: opening it shows a button, its POST signs in.
    link = link_in(notice)
    opened = owner.get(link)
    assert opened.status_code == 200 and f"Sign in as {person.email}" in opened.content.decode()
    assert not is_signed_in(owner)  # opening alone (a mail scanner's fetch) signs nobody in
    signed = owner.post(link)
    assert signed.status_code == 302 and signed["Location"] == "/settings/"
    assert is_signed_in(owner)
    # Once only.
    again = browser(98)
    assert again.post(link).status_code == 404 and not is_signed_in(again)


def test_the_paused_page_says_nothing_of_whether_the_address_is_someones(person):
    stranger = f"nobody-{secrets.token_hex(4)}@acme.example"
    guess_from_many_addresses(stranger, addresses=CEILING, per_address=1)
    guess_from_many_addresses(person.email, addresses=CEILING, per_address=1)
    mail.outbox.clear()

    for_stranger = sign_in(browser(), stranger, "anything")
    for_person = sign_in(browser(), person.email, "anything")

    assert for_stranger.status_code == for_person.status_code == 429
    token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
    pages = [
        token.sub("", answer.content.decode().replace(email, "EMAIL"))
        for answer, email in ((for_stranger, stranger), (for_person, person.email))
    ]
    assert pages[0] == pages[1]
    assert mail.outbox == []  # told once, when the pause began: not at every try


def test_past_the_first_wrong_passwords_tries_are_taken_one_at_a_time(person):
    for n in range(SLOW_AFTER):
        assert sign_in(browser(n), person.email, f"guess-{n}").status_code == 200
    # The next try takes the slot; one right after it is answered "wait", its password unread.
    assert sign_in(browser(), person.email, "guess-next").status_code == 200
    owner = browser()
    waited = sign_in(owner, person.email, PASSWORD)

    body = waited.content.decode()
    assert waited.status_code == 429
    assert int(waited["Retry-After"]) == settings.ATRIUM_ACCOUNTS_GUESSES_SPACING_SECONDS
    assert "tries are taken one at a time" in body and WRONG not in body
    assert not is_signed_in(owner)
    # A try refused that way is no failure of the address from that client address either.
    assert not AccessAttempt.objects.filter(
        username=person.email, ip_address=owner.defaults["REMOTE_ADDR"]
    ).exists()
    # Once the spacing has gone by, the right password signs in.
    spacing_passes(person.email)
    assert sign_in(owner, person.email, PASSWORD).status_code == 302 and is_signed_in(owner)


def test_while_paused_the_owner_can_ask_for_another_sign_in_link_and_a_stranger_gets_nothing(person):
    guess_from_many_addresses(person.email, addresses=CEILING, per_address=1)
    mail.outbox.clear()
    owner = browser()
    page = sign_in(owner, person.email, PASSWORD).content.decode()
    assert 'action="/accounts/sign-in-link/"' in page and f'value="{person.email}"' in page

    asked = owner.post("/accounts/sign-in-link/", {"email": person.email})
    for_nobody = browser().post(
        "/accounts/sign-in-link/", {"email": f"nobody-{secrets.token_hex(4)}@acme.example"}
    )

    assert asked.status_code == for_nobody.status_code == 302
    assert asked["Location"] == for_nobody["Location"] == "/accounts/sign-in-link/sent/"
    (message,) = mail.outbox
    assert message.to == [person.email] and message.subject == "Acme Workspace: your sign-in link"
    assert owner.post(link_in(message)).status_code == 302 and is_signed_in(owner)


def test_no_sign_in_link_is_sent_for_an_address_whose_sign_in_is_not_paused(person):
    asked = browser().post("/accounts/sign-in-link/", {"email": person.email})

    assert asked.status_code == 302 and mail.outbox == []


def test_a_new_password_ends_the_pause(person):
    guess_from_many_addresses(person.email, addresses=CEILING, per_address=1)
    assert throttle.sign_in_paused(person.email)

    services.user_set_password(user=person, password="quiet-harbour-lantern-42")

    assert not throttle.sign_in_paused(person.email)
    client = browser()
    assert sign_in(client, person.email, "quiet-harbour-lantern-42").status_code == 302 and is_signed_in(
        client
    )


def test_the_current_password_is_not_checked_on_the_password_page_while_paused(person):
    client = browser()
    client.force_login(person)
    guess_from_many_addresses(person.email, addresses=CEILING, per_address=1)

    answer = client.post(
        "/settings/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "quiet-harbour-lantern-42",
            "new_password2": "quiet-harbour-lantern-42",
        },
    )

    assert answer.status_code == 200 and "are not being checked for now" in answer.content.decode()
    person.refresh_from_db()
    assert person.check_password(PASSWORD)


def test_a_sign_in_link_sets_no_password_and_a_reset_link_signs_nobody_in(person):
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    uid = urlsafe_base64_encode(force_bytes(person.pk))
    reset_token = default_token_generator.make_token(person)
    sign_in_token = services.sign_in_links.make_token(person)

    assert browser().post(f"/accounts/sign-in-link/{uid}/{reset_token}/").status_code == 404
    reset_page = browser().get(f"/accounts/password-reset/{uid}/{sign_in_token}/", follow=True)
    assert 'data-testid="invalid-link"' in reset_page.content.decode()


def test_without_redis_people_still_sign_in_and_axes_still_counts(person, settings, caplog):
    from apps.core.testing import free_port

    settings.CACHES = {
        "default": {
            **settings.CACHES["default"],
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        }
    }
    client = browser()

    wrong = sign_in(client, person.email, "guess")
    right = sign_in(client, person.email, PASSWORD)

    assert wrong.status_code == 200 and WRONG in wrong.content.decode()
    assert right.status_code == 302 and is_signed_in(client)
    assert "sign-in tried without the ceiling on guesses" in caplog.text
    assert "a wrong password was not counted for its address" in caplog.text
