"""Password guessing on the sign-in page /oauth/authorize sends people to is throttled like any
sign-in (apps.accounts.throttle), over real HTTP: the web process under uvicorn, Django's async
request path."""

import secrets
from collections.abc import Iterator
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django_tenants.utils import schema_context

from apps.accounts.models import Role, User
from apps.oauth.tests.oauth_client import PASSWORD, pkce_pair, sign_in

pytestmark = pytest.mark.live

LIMIT = settings.AXES_FAILURE_LIMIT


@pytest.fixture
def two_people(committed) -> Iterator[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """Two members of Acme of their own: the live server's rows are committed, and a lockout of
    a demo person would refuse them to the tests that follow."""
    suffix = secrets.token_hex(4)
    emails = (f"guessed-{suffix}@acme.example", f"colleague-{suffix}@acme.example")
    with schema_context("acme"):
        member = Role.objects.get(key="member")
        for email in emails:
            User.objects.create_user(email=email, password=PASSWORD, role=member)
    yield emails
    with schema_context("acme"):
        AccessAttempt.objects.filter(username__in=emails).delete()
        User.objects.filter(email__in=emails).delete()


def test_guessing_on_the_authorize_sign_in_is_locked_out_and_a_colleague_still_connects(
    public_client, acme_url, two_people
):
    guessed, colleague = two_people
    _verifier, challenge = pkce_pair()
    with httpx.Client(base_url=acme_url, follow_redirects=False, timeout=10) as browser:
        to_sign_in = urlsplit(
            browser.get(public_client.authorization_url(challenge=challenge)).headers["location"]
        )
        assert to_sign_in.path == "/accounts/sign-in/"
        next_path = parse_qs(to_sign_in.query)["next"][0]

        answers = [sign_in(browser, guessed, f"guess-{n}", next_path) for n in range(LIMIT)]
        right = sign_in(browser, guessed, PASSWORD, next_path)

    assert [answer.status_code for answer in answers] == [200] * (LIMIT - 1) + [429]
    assert "Too many failed sign-ins" in answers[-1].text
    # The way back keeps the authorization request.
    assert f'<a href="/accounts/sign-in/?{urlencode({"next": next_path})}">' in answers[-1].text
    assert right.status_code == 429 and "location" not in right.headers
    with httpx.Client(base_url=acme_url, follow_redirects=False, timeout=10) as other:
        signed_in = sign_in(other, colleague, PASSWORD, next_path)
        consent = other.get(signed_in.headers["location"])
    assert signed_in.status_code == 302 and signed_in.headers["location"] == next_path
    assert consent.status_code == 200 and "Connect an app to your workspace?" in consent.text
