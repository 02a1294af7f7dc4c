"""A connection pinned to a tool profile on the consent page: the person's choice (preselected from
a `profile:<key>` scope the client asked for) is carried by the token as that scope, survives every
refresh, and narrows what the MCP door lists (apps.catalogue.profiles)."""

import httpx
import pytest

from apps.catalogue import profiles
from apps.oauth import scopes
from apps.oauth.tests.oauth_client import consent_page, pkce_pair, sign_in

pytestmark = pytest.mark.live


def obtain(client, *, scope: str = "mcp offline_access", profile: str | None = None) -> dict:
    """The whole flow with the person choosing `profile` on the consent page (None: as shown)."""
    redirect, verifier = client.authorize(
        scope=scope, choices=None if profile is None else {"profile": profile}
    )
    assert "code" in redirect.params, redirect.url
    answer = client.exchange(redirect.params["code"], verifier)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_the_consent_page_offers_every_profile_and_preselects_the_one_asked_for(public_client, acme_url):
    _verifier, challenge = pkce_pair()
    with httpx.Client(base_url=acme_url, follow_redirects=False, timeout=10) as person:
        sign_in(person, "member@acme.example")
        plain = consent_page(person, public_client.authorization_url(challenge=challenge))
        asked = consent_page(
            person, public_client.authorization_url(challenge=challenge, scope="mcp profile:sales")
        )

    assert plain.options == {"": True, **{profile.key: False for profile in profiles.PROFILES}}
    assert asked.options["sales"] is True and asked.options[""] is False
    # What the client asked for is told in words, the profile included.
    assert "Sales" in asked.html
    # Each profile is offered by what the person does.
    assert "I do the books (Finance: " in plain.html and "I answer customers (Support: " in plain.html


def test_the_profile_chosen_on_the_consent_page_pins_the_token(public_client, acme_url, at_mcp):
    body = obtain(public_client, profile="operations")

    assert body["scope"].split() == ["mcp", "offline_access", "profile:operations"]
    principal = at_mcp(body["access_token"], acme_url)
    assert principal.profile == "operations"
    assert principal.scopes == frozenset({"mcp"})


def test_the_person_may_choose_another_profile_or_none_than_the_client_asked_for(
    public_client, acme_url, at_mcp
):
    other = obtain(public_client, scope="mcp profile:sales", profile="people")
    none = obtain(public_client, scope="mcp profile:sales", profile="")
    kept = obtain(public_client, scope="mcp profile:sales")

    assert at_mcp(other["access_token"], acme_url).profile == "people"
    assert at_mcp(none["access_token"], acme_url).profile == ""
    assert "profile:" not in none["scope"]
    assert at_mcp(kept["access_token"], acme_url).profile == "sales"


@pytest.mark.parametrize("scope", ["mcp profile:nope", "mcp profile:sales profile:people", "mcp profile:"])
def test_an_unknown_profile_or_more_than_one_is_an_invalid_scope(public_client, scope):
    redirect, _verifier = public_client.authorize(scope=scope)

    assert redirect.params["error"] == "invalid_scope"
    assert "code" not in redirect.params


def test_a_tampered_profile_on_the_consent_form_issues_nothing(public_client):
    redirect, _verifier = public_client.authorize(choices={"profile": "everything"}, expect_redirect=False)

    assert redirect is None


def test_a_refresh_keeps_the_profile_whatever_scope_it_asks_for(public_client, acme_url, at_mcp):
    body = obtain(public_client, scope="mcp:read offline_access", profile="sales")

    again = public_client.refresh(body["refresh_token"])
    assert again.status_code == 200, again.text
    narrowed = public_client.refresh(again.json()["refresh_token"], scope="mcp:read")
    assert narrowed.status_code == 200, narrowed.text
    widened = public_client.refresh(narrowed.json()["refresh_token"], scope="mcp:read profile:essentials")

    assert again.json()["scope"].split() == ["mcp:read", "offline_access", "profile:sales"]
    assert narrowed.json()["scope"].split() == ["mcp:read", "profile:sales"]
    principal = at_mcp(narrowed.json()["access_token"], acme_url)
    assert (principal.profile, principal.scopes) == ("sales", frozenset({"mcp:read"}))
    assert widened.status_code == 400 and widened.json()["error"] == "invalid_scope"


def test_profiles_are_not_advertised_as_scopes_to_ask_for(acme_url):
    """Clients that ask for every advertised scope would ask for every profile at once."""
    metadata = httpx.get(f"{acme_url}/.well-known/oauth-authorization-server", timeout=10).json()
    resource = httpx.get(f"{acme_url}/.well-known/oauth-protected-resource", timeout=10).json()

    assert not [scope for scope in metadata["scopes_supported"] if scope.startswith("profile:")]
    assert not [scope for scope in resource["scopes_supported"] if scope.startswith("profile:")]


def test_the_profile_is_told_in_words_with_the_rest_still_reachable():
    words = scopes.describe(["mcp", "profile:sales"])

    assert words[0] == scopes.describe(["mcp"])[0]
    assert words[1].startswith("List only the Sales tools")
    assert "searchTools" in words[1]
    assert scopes.profile_of(["mcp", "profile:sales"]) == "sales"
    assert scopes.profile_of(["mcp"]) == ""
