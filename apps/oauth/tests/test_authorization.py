"""The authorization endpoint over real HTTP: what is refused before sign-in or consent, what is
an error page rather than a redirect, `iss` on every answer, and the consent page itself."""

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from apps.oauth.tests.oauth_client import consent_form, consent_over_http, pkce_pair, sign_in

pytestmark = pytest.mark.live


def get(url: str, client: httpx.Client | None = None) -> httpx.Response:
    if client is not None:
        return client.get(url)
    return httpx.get(url, follow_redirects=False, timeout=10)


def redirect_params(response: httpx.Response) -> dict[str, str]:
    assert response.status_code == 302, (response.status_code, response.text[:300])
    query = parse_qs(urlsplit(response.headers["location"]).query)
    return {key: values[-1] for key, values in query.items()}


@contextmanager
def signed_in(base_url: str, email: str = "member@acme.example") -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, follow_redirects=False, timeout=10) as client:
        assert sign_in(client, email).status_code == 302
        yield client


@pytest.mark.parametrize(
    ("pkce", "description"),
    [
        ({}, "Code challenge required."),
        ({"method": "plain"}, "Transform algorithm not supported."),
        ({"method": None}, "Transform algorithm not supported."),  # the default method is plain
    ],
)
def test_a_request_without_an_s256_challenge_is_refused_before_the_consent_page(
    public_client, acme_url, pkce, description
):
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(
        challenge=None if not pkce else challenge, method=pkce.get("method", "S256")
    )

    with signed_in(acme_url) as person:
        answer = get(url, person)

    params = redirect_params(answer)
    assert answer.headers["location"].startswith(public_client.redirect_uri + "?")
    assert params["error"] == "invalid_request"
    assert params["error_description"] == description
    assert params["iss"] == acme_url
    assert "state" in params


def test_a_bad_request_is_answered_before_anyone_is_asked_to_sign_in(public_client, acme_url):
    answer = get(public_client.authorization_url(challenge=None))

    assert redirect_params(answer)["error"] == "invalid_request"
    assert not answer.headers["location"].startswith(f"{acme_url}/accounts/sign-in/")


def test_a_good_request_from_someone_not_signed_in_goes_to_the_sign_in_page_and_back(public_client, acme_url):
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(challenge=challenge)

    answer = get(url)

    location = urlsplit(answer.headers["location"])
    assert answer.status_code == 302 and location.path == "/accounts/sign-in/"
    assert parse_qs(location.query)["next"][0] == url.removeprefix(acme_url)


@pytest.mark.parametrize("problem", ["unknown client", "unregistered redirect URI", "no client"])
def test_an_unknown_client_or_redirect_uri_gets_an_error_page_never_a_redirect(public_client, problem):
    _verifier, challenge = pkce_pair()
    url = {
        "unknown client": public_client.authorization_url(challenge=challenge).replace(
            public_client.client_id, "no-such-client"
        ),
        "unregistered redirect URI": public_client.authorization_url(
            challenge=challenge, redirect_uri="https://attacker.example/steal"
        ),
        "no client": public_client.authorization_url(challenge=challenge).replace(
            f"client_id={public_client.client_id}", ""
        ),
    }[problem]

    with signed_in(public_client.base_url) as person:
        answers = [get(url), get(url, person)]
    for answer in answers:
        assert answer.status_code in (400, 401)
        assert "location" not in answer.headers
        assert "This app's request cannot be completed" in answer.text
        assert "attacker.example" not in answer.text
        assert answer.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    ("extra", "error"),
    [
        ({"resource": "https://elsewhere.example/api/mcp"}, "invalid_target"),
        ({"resource": "http://127.0.0.2:1/api/mcp"}, "invalid_target"),
        ({"scope": "offline_access"}, "invalid_scope"),
        ({"scope": "mcp openid"}, "invalid_scope"),
        ({"response_type": "token"}, "unsupported_response_type"),
    ],
)
def test_requests_outside_what_is_offered_go_back_to_the_client_with_the_error_and_iss(
    public_client, acme_url, extra, error
):
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(challenge=challenge, **extra)

    with signed_in(acme_url) as person:
        params = redirect_params(get(url, person))

    assert params["error"] == error
    assert params["iss"] == acme_url


def test_a_resource_written_as_the_mcp_url_is_accepted(public_client, acme_url):
    for resource in (f"{acme_url}/api/mcp", f"{acme_url}/api/mcp/", f"{acme_url.upper()}/api/mcp"):
        redirect, _verifier = public_client.authorize(resource=resource)
        assert "code" in redirect.params, redirect.url


def test_allowing_sends_the_code_state_and_iss_back(public_client, acme_url):
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(challenge=challenge, state="s-123")

    redirect = consent_over_http(url, email="member@acme.example")

    assert redirect.url.startswith(public_client.redirect_uri + "?")
    assert set(redirect.params) == {"code", "state", "iss"}
    assert redirect.params["state"] == "s-123"
    assert redirect.params["iss"] == acme_url


def test_denying_sends_access_denied_with_state_and_iss(public_client, acme_url):
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(challenge=challenge, state="s-456")

    redirect = consent_over_http(url, email="member@acme.example", allow=False)

    assert redirect.params == {"error": "access_denied", "state": "s-456", "iss": acme_url}


def test_the_consent_page_shows_who_asks_for_what_and_cannot_be_framed(acme_url):
    from apps.oauth.tests.oauth_client import OAuthClient

    client = OAuthClient.register(acme_url, name="Röntgen <Agent>", redirect_uri="http://localhost:7777/cb")
    _verifier, challenge = pkce_pair()
    url = client.authorization_url(challenge=challenge, scope="mcp:read offline_access")

    with signed_in(acme_url, "viewer@acme.example") as person:
        page = get(url, person)

    assert page.status_code == 200
    assert "Acme Workspace" in page.text
    assert "Röntgen &lt;Agent&gt;" in page.text  # escaped, never markup
    assert "name declared by the app, not verified" in page.text
    assert "viewer@acme.example" in page.text
    assert "Read your workspace&#x27;s data (read-only tools)" in page.text
    assert "Stay connected while you are away, until you disconnect it" in page.text
    assert "Use every tool your role allows" not in page.text
    assert '<code data-testid="redirect-host">localhost:7777</code>' in page.text
    assert ">Allow</button>" in page.text and ">Deny</button>" in page.text
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["content-security-policy"] == "frame-ancestors 'none'"
    assert "no-store" in page.headers["cache-control"]
    assert "csrfmiddlewaretoken" in consent_form(page.text)


def test_the_person_is_asked_every_time_even_when_the_client_says_approval_prompt_auto(
    public_client, acme_url
):
    public_client.obtain(scope="mcp")  # an earlier, still valid authorization
    _verifier, challenge = pkce_pair()

    with signed_in(acme_url) as person:
        page = get(public_client.authorization_url(challenge=challenge, approval_prompt="auto"), person)

    assert page.status_code == 200
    assert ">Allow</button>" in page.text


def test_the_consent_answer_needs_the_csrf_token(public_client, acme_url):
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(challenge=challenge)
    with signed_in(acme_url) as person:
        page = get(url, person)
        fields = consent_form(page.text)
        fields.pop("csrfmiddlewaretoken")
        answer = person.post(url, data={**fields, "allow": "on"})

    assert answer.status_code == 403
    assert "location" not in answer.headers


def test_a_tampered_consent_answer_is_an_error_page_not_a_500(public_client, acme_url):
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(challenge=challenge)
    with signed_in(acme_url) as person:
        fields = consent_form(get(url, person).text)
        unknown_client = person.post(url, data={**fields, "client_id": "forged", "allow": "on"})
        missing_fields = person.post(url, data={"csrfmiddlewaretoken": fields["csrfmiddlewaretoken"]})
        other_redirect = person.post(
            url, data={**fields, "redirect_uri": "https://attacker.example/cb", "allow": "on"}
        )
        plain = person.post(url, data={**fields, "code_challenge_method": "plain", "allow": "on"})

    assert unknown_client.status_code == 400 and "location" not in unknown_client.headers
    assert missing_fields.status_code == 400 and "location" not in missing_fields.headers
    assert other_redirect.status_code == 400 and "location" not in other_redirect.headers
    assert redirect_params(plain)["error"] == "invalid_request"


def test_a_person_of_another_workspace_cannot_consent_here(public_client, acme_url, globex_url):
    # Sessions and people belong to one workspace: a Globex session presented at Acme is none.
    _verifier, challenge = pkce_pair()
    url = public_client.authorization_url(challenge=challenge)
    with signed_in(globex_url, "owner@globex.example") as globex_person:
        session = globex_person.cookies["atrium_session"]
    answer = httpx.get(url, headers={"Cookie": f"atrium_session={session}"}, follow_redirects=False)

    assert urlsplit(answer.headers["location"]).path == "/accounts/sign-in/"
    with httpx.Client(base_url=acme_url, follow_redirects=False) as acme:
        refused = sign_in(acme, "owner@globex.example")
    assert refused.status_code == 200  # the sign-in form again: no such person at Acme
