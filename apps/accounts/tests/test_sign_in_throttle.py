"""Password guessing is throttled (django-axes, apps.accounts.throttle): per e-mail address and
client address, in the schema of the site signed in to. Over Django's test client, whose requests
come from 127.0.0.1; apps/oauth/tests/test_sign_in_throttle.py drives the sign-in /oauth/authorize
sends people to over real HTTP."""

import re

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.management import call_command
from django.db.models import F
from django.test import Client
from django_tenants.utils import schema_context

from apps.accounts import throttle
from apps.accounts.models import Role, User

pytestmark = pytest.mark.django_db

WRONG = "The email or password is not right."
LOCKED = "Too many failed sign-ins"
PASSWORD = "atrium-demo"
LIMIT = settings.AXES_FAILURE_LIMIT
COOL_OFF_SECONDS = int(settings.AXES_COOLOFF_TIME.total_seconds())


# The addresses these tests try: their wrong passwords are also counted per address, from every
# client address, in Redis (apps.accounts.throttle), which no transaction rolls back.
TRIED = ("owner@acme.example", "member@acme.example", "nobody@acme.example", "dana@both.example")


def forget_counts(acme, globex) -> None:  # type: ignore[no-untyped-def]
    for schema_name in (acme.schema_name, globex.schema_name):
        with schema_context(schema_name):
            for email in TRIED:
                throttle.forget_failures(email)


@pytest.fixture(autouse=True)
def no_earlier_failures(acme, globex):  # type: ignore[no-untyped-def]
    """Only this test's failed sign-ins: live tests in the same process (wrong passwords in a real
    browser) commit theirs. Removed inside the test's transaction, so they are back afterwards.
    The counts of each address in Redis are forgotten before and after: the tests after these ones
    sign the demo people in with their password."""
    forget_counts(acme, globex)
    for schema_name in ("public", acme.schema_name, globex.schema_name):
        with schema_context(schema_name):
            AccessAttempt.objects.all().delete()
    yield
    forget_counts(acme, globex)


def sign_in(client: Client, email: str, password: str, path: str = "/accounts/sign-in/", **data: str):  # type: ignore[no-untyped-def]
    return client.post(path, {"username": email, "password": password, **data})


def fail(client: Client, email: str, times: int, path: str = "/accounts/sign-in/"):  # type: ignore[no-untyped-def]
    answers = [sign_in(client, email, f"guess-{n}", path) for n in range(times)]
    return answers[-1]


def time_passes(schema_name: str) -> None:
    """The lockout's cool-off goes by: every failure recorded in the schema moves that far back."""
    with schema_context(schema_name):
        AccessAttempt.objects.update(attempt_time=F("attempt_time") - settings.AXES_COOLOFF_TIME)


def is_signed_in(client: Client) -> bool:
    return client.get("/settings/").status_code == 200


def test_wrong_passwords_are_answered_as_usual_below_the_limit(acme, acme_client):
    answer = fail(acme_client, "owner@acme.example", LIMIT - 1)

    assert answer.status_code == 200
    assert WRONG in answer.content.decode()


def test_the_limit_locks_the_address_out_with_a_page_that_says_so(acme, acme_client):
    answer = fail(acme_client, "owner@acme.example", LIMIT)

    body = answer.content.decode()
    assert answer.status_code == 429
    assert answer["Content-Type"].startswith("text/html")
    assert LOCKED in body and f"paused for {COOL_OFF_SECONDS // 60} minutes" in body
    # A page of the project (its stylesheet, the workspace's name), with a way back.
    assert "css/atrium.css" in body and "Acme Workspace" in body
    assert re.search(r'<a href="/accounts/sign-in/">Back to sign in</a>', body)
    # Seconds until the lockout ends, counted from the failure that started it a moment ago.
    assert COOL_OFF_SECONDS - 60 < int(answer["Retry-After"]) <= COOL_OFF_SECONDS
    assert "no-store" in answer["Cache-Control"]
    # It says nothing of whether the address has an account: the answer is the same for a stranger.
    stranger = fail(Client(HTTP_HOST="127.0.0.1"), "nobody@acme.example", LIMIT)
    assert stranger.status_code == 429 and LOCKED in stranger.content.decode()


def test_while_locked_out_even_the_right_password_is_refused(acme, acme_client):
    fail(acme_client, "owner@acme.example", LIMIT)

    answer = sign_in(acme_client, "owner@acme.example", PASSWORD)

    assert answer.status_code == 429 and LOCKED in answer.content.decode()
    assert not is_signed_in(acme_client)


def test_tries_while_locked_out_do_not_push_the_end_further(acme, acme_client):
    fail(acme_client, "owner@acme.example", LIMIT)
    fail(acme_client, "owner@acme.example", 3)

    assert AccessAttempt.objects.get().failures_since_start == LIMIT


def test_the_address_counts_whatever_its_case_and_spaces(acme, acme_client):
    for email in ["Owner@Acme.example", " owner@acme.example", "OWNER@ACME.EXAMPLE "] * LIMIT:
        sign_in(acme_client, email, "guess")

    answer = sign_in(acme_client, "owner@acme.example", PASSWORD)

    assert answer.status_code == 429
    assert list(AccessAttempt.objects.values_list("username", flat=True)) == ["owner@acme.example"]


def test_another_person_from_the_same_address_still_signs_in(acme, acme_client):
    fail(acme_client, "owner@acme.example", LIMIT)
    colleague = Client(HTTP_HOST="127.0.0.1")  # the same client address (127.0.0.1)

    answer = sign_in(colleague, "member@acme.example", PASSWORD)

    assert answer.status_code == 302 and answer["Location"] == "/settings/"
    assert is_signed_in(colleague)


def test_the_same_person_from_another_address_is_not_locked_out(acme, acme_client):
    fail(acme_client, "owner@acme.example", LIMIT)
    elsewhere = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR="198.51.100.7")

    answer = sign_in(elsewhere, "owner@acme.example", PASSWORD)

    assert answer.status_code == 302
    assert is_signed_in(elsewhere)


def test_the_lockout_ends_after_the_cool_off(acme, acme_client):
    fail(acme_client, "owner@acme.example", LIMIT)
    assert sign_in(acme_client, "owner@acme.example", PASSWORD).status_code == 429

    time_passes("acme")
    answer = sign_in(acme_client, "owner@acme.example", PASSWORD)

    assert answer.status_code == 302
    assert is_signed_in(acme_client)


def test_a_successful_sign_in_forgets_the_failures(acme, acme_client):
    fail(acme_client, "owner@acme.example", LIMIT - 1)
    assert sign_in(acme_client, "owner@acme.example", PASSWORD).status_code == 302
    acme_client.post("/accounts/sign-out/")

    answer = fail(acme_client, "owner@acme.example", LIMIT - 1)

    assert answer.status_code == 200 and WRONG in answer.content.decode()
    assert AccessAttempt.objects.get().failures_since_start == LIMIT - 1


def test_a_lockout_in_one_workspace_does_not_lock_the_same_address_in_another(
    acme, acme_client, globex_client
):
    email = "dana@both.example"
    User.objects.create_user(email=email, password="acme-pass-1", role=Role.objects.get(key="member"))
    with schema_context("globex"):
        User.objects.create_user(email=email, password="globex-pass-1", role=Role.objects.get(key="member"))
    fail(acme_client, email, LIMIT)

    at_globex = sign_in(globex_client, email, "globex-pass-1")
    at_acme = sign_in(acme_client, email, "acme-pass-1")

    assert at_globex.status_code == 302 and is_signed_in(globex_client)
    assert at_acme.status_code == 429
    with schema_context("globex"):
        assert not AccessAttempt.objects.exists()


def test_an_operator_unlocks_a_workspace_person_with_the_axes_command(acme, acme_client):
    fail(acme_client, "owner@acme.example", LIMIT)

    # docs/deploy.md: manage.py tenant_command axes_reset_username --schema=<schema> <e-mail>
    call_command("tenant_command", "axes_reset_username", "owner@acme.example", schema_name="acme")

    assert sign_in(acme_client, "owner@acme.example", PASSWORD).status_code == 302


# --- the operators' admin (public schema) --------------------------------------------------------

OPERATOR = "operator@atrium.example"


def test_the_operators_admin_locks_out_too(public_client):
    public_client.get("/admin/login/?next=/admin/")
    answers = [
        sign_in(public_client, OPERATOR, f"guess-{n}", "/admin/login/?next=/admin/", next="/admin/")
        for n in range(LIMIT)
    ]

    assert [answer.status_code for answer in answers] == [200] * (LIMIT - 1) + [429]
    body = answers[-1].content.decode()
    assert LOCKED in body and "css/atrium.css" in body
    assert 'href="/admin/login/?next=%2Fadmin%2F"' in body
    right = sign_in(public_client, OPERATOR, PASSWORD, "/admin/login/?next=/admin/", next="/admin/")
    assert right.status_code == 429
    assert public_client.get("/admin/").status_code == 302


def test_an_admin_lockout_lives_in_the_public_schema_and_the_admin_lists_it(public_client):
    fail(public_client, OPERATOR, LIMIT, "/admin/login/")
    assert AccessAttempt.objects.filter(username=OPERATOR).exists()
    with schema_context("acme"):
        assert not AccessAttempt.objects.exists()
    other_operator = User.objects.create_superuser(
        email="second-operator@atrium.example", password="pw-2nd-op"
    )
    admin = Client(HTTP_HOST=settings.ATRIUM_PUBLIC_DOMAINS[0])
    admin.force_login(other_operator)

    listing = admin.get("/admin/axes/accessattempt/")

    assert listing.status_code == 200 and OPERATOR in listing.content.decode()


def test_an_operator_locked_out_of_the_admin_is_unlocked_by_the_axes_command(public_client):
    fail(public_client, OPERATOR, LIMIT, "/admin/login/")

    call_command("axes_reset_username", OPERATOR)

    answer = sign_in(public_client, OPERATOR, PASSWORD, "/admin/login/", next="/admin/")
    assert answer.status_code == 302 and answer["Location"] == "/admin/"
