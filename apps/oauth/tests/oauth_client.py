"""A small OAuth client for the black-box tests: plain HTTP against a live server, with a person
who signs in and answers the consent page the way a browser would (form posts with the CSRF
cookie), but without a browser. The SDK interop tests use `consent_over_http` as their
headless redirect handler."""

import base64
import hashlib
import secrets
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import httpx

PASSWORD = "atrium-demo"
REDIRECT_URI = "http://127.0.0.1:9/callback"


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    return verifier, challenge


class _FormReader(HTMLParser):
    """The consent form's fields as a browser would post them (hidden inputs, the selected option
    of each select), and each select's options with whether it is selected."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] = {}
        self.options: dict[str, dict[str, bool]] = {}
        self.in_form = False
        self.select: str | None = None
        self.action: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if (
            tag == "form"
            and (values.get("method") or "").lower() == "post"
            and "consent-form" in (values.get("class") or "")
        ):
            self.in_form = True
            self.action = values.get("action")
        elif tag == "input" and self.in_form and values.get("name"):
            self.fields[values["name"] or ""] = values.get("value") or ""
        elif tag == "select" and self.in_form and values.get("name"):
            self.select = values["name"] or ""
            self.options[self.select] = {}
        elif tag == "option" and self.select is not None:
            value, selected = values.get("value") or "", "selected" in values
            self.options[self.select][value] = selected
            if selected or self.select not in self.fields:
                self.fields[self.select] = value

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.in_form = False
        elif tag == "select":
            self.select = None


def consent_form(html: str) -> dict[str, str]:
    reader = _FormReader()
    reader.feed(html)
    return reader.fields


@dataclass
class ConsentPage:
    html: str
    fields: dict[str, str]
    # The profile select's options (value: selected).
    options: dict[str, bool]


def consent_page(client: httpx.Client, authorization_url: str) -> ConsentPage:
    """The consent page a signed-in person is shown for an authorization URL."""
    response = client.get(authorization_url)
    assert response.status_code == 200, (response.status_code, response.text[:500])
    reader = _FormReader()
    reader.feed(response.text)
    return ConsentPage(response.text, reader.fields, reader.options.get("profile", {}))


@dataclass
class Redirect:
    """Where the authorization endpoint sent the person back to the client."""

    url: str
    params: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, url: str) -> "Redirect":
        query = parse_qs(urlsplit(url).query, keep_blank_values=True)
        return cls(url, {key: values[-1] for key, values in query.items()})


def sign_in(
    client: httpx.Client, email: str, password: str = PASSWORD, next_path: str = ""
) -> httpx.Response:
    client.get("/accounts/sign-in/")
    return client.post(
        "/accounts/sign-in/",
        data={
            "username": email,
            "password": password,
            "next": next_path,
            "csrfmiddlewaretoken": client.cookies.get("atrium_csrf", ""),
        },
    )


def consent_over_http(
    authorization_url: str,
    *,
    email: str,
    allow: bool = True,
    password: str = PASSWORD,
    choices: dict[str, str] | None = None,
    expect_redirect: bool = True,
) -> Redirect | None:
    """Follows an authorization URL as a person would: signs in when asked, then answers the
    consent page (with `choices` for its fields, such as the profile). Returns the redirect back
    to the client (never followed), or None for an error page when not `expect_redirect`."""
    parts = urlsplit(authorization_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    with httpx.Client(base_url=origin, follow_redirects=False, timeout=10) as client:
        response = client.get(authorization_url)
        if (
            response.status_code == 302
            and urlsplit(response.headers["location"]).path == "/accounts/sign-in/"
        ):
            next_path = parse_qs(urlsplit(response.headers["location"]).query)["next"][0]
            signed_in = sign_in(client, email, password, next_path)
            assert signed_in.status_code == 302, signed_in.text
            response = client.get(urljoin(origin, signed_in.headers["location"]))
        if response.status_code == 302:
            return Redirect.of(response.headers["location"])
        assert response.status_code == 200, (response.status_code, response.text[:500])
        fields = consent_form(response.text)
        assert fields, "no consent form on the page"
        fields.update(choices or {})
        if allow:
            fields["allow"] = "on"
        answered = client.post(str(response.url), data=fields, headers={"Referer": str(response.url)})
        if not expect_redirect and answered.status_code != 302:
            return None
        assert answered.status_code == 302, (answered.status_code, answered.text[:500])
        return Redirect.of(answered.headers["location"])


@dataclass
class OAuthClient:
    """One registered client of one workspace, driven over real HTTP."""

    base_url: str
    client_id: str
    client_secret: str | None
    redirect_uri: str
    registration: dict[str, Any]

    @classmethod
    def register(
        cls,
        base_url: str,
        *,
        public: bool = True,
        name: str = "Test client",
        redirect_uri: str = REDIRECT_URI,
        **extra: Any,
    ) -> "OAuthClient":
        metadata = {
            "client_name": name,
            "redirect_uris": [redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none" if public else "client_secret_basic",
            **extra,
        }
        response = httpx.post(f"{base_url}/oauth/register", json=metadata, timeout=10)
        assert response.status_code == 201, response.text
        body = response.json()
        return cls(base_url, body["client_id"], body.get("client_secret"), redirect_uri, body)

    def authorization_url(
        self, *, challenge: str | None, method: str | None = "S256", scope: str | None = "mcp", **extra: str
    ) -> str:
        params: dict[str, str] = {
            "response_type": "code",
            "client_id": self.client_id,
            "redirect_uri": self.redirect_uri,
            "state": secrets.token_urlsafe(12),
        }
        if scope is not None:
            params["scope"] = scope
        if challenge is not None:
            params["code_challenge"] = challenge
        if method is not None and challenge is not None:
            params["code_challenge_method"] = method
        params.update(extra)
        return f"{self.base_url}/oauth/authorize?{urlencode(params)}"

    def authorize(
        self,
        *,
        email: str = "member@acme.example",
        scope: str = "mcp",
        allow: bool = True,
        choices: dict[str, str] | None = None,
        expect_redirect: bool = True,
        **extra: str,
    ) -> tuple[Redirect | None, str]:
        """Runs the authorization request with a fresh PKCE pair; returns the redirect and the
        verifier. With `expect_redirect=False`, an error page instead gives None."""
        verifier, challenge = pkce_pair()
        url = self.authorization_url(challenge=challenge, scope=scope, **extra)
        redirect = consent_over_http(
            url, email=email, allow=allow, choices=choices, expect_redirect=expect_redirect
        )
        return redirect, verifier

    def _auth(self) -> tuple[dict[str, str], Any]:
        if self.client_secret:
            return {}, (self.client_id, self.client_secret)
        return {"client_id": self.client_id}, None

    def token(self, **data: str) -> httpx.Response:
        params, auth = self._auth()
        return httpx.post(f"{self.base_url}/oauth/token", data={**params, **data}, auth=auth, timeout=10)

    def exchange(self, code: str, verifier: str | None, **extra: str) -> httpx.Response:
        data = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri, **extra}
        if verifier is not None:
            data["code_verifier"] = verifier
        return self.token(**data)

    def refresh(self, refresh_token: str, **extra: str) -> httpx.Response:
        return self.token(grant_type="refresh_token", refresh_token=refresh_token, **extra)

    def revoke(self, token: str) -> httpx.Response:
        params, auth = self._auth()
        return httpx.post(
            f"{self.base_url}/oauth/revoke", data={**params, "token": token}, auth=auth, timeout=10
        )

    def obtain(
        self, *, email: str = "member@acme.example", scope: str = "mcp offline_access", **extra: str
    ) -> dict[str, Any]:
        """The whole flow: authorize, allow, exchange. Returns the token response."""
        redirect, verifier = self.authorize(email=email, scope=scope, **extra)
        assert "code" in redirect.params, redirect.url
        response = self.exchange(redirect.params["code"], verifier)
        assert response.status_code == 200, response.text
        return response.json()


def present_to_mcp(token: str, base_url: str, schema_name: str = "acme") -> Any:
    """Presents a bearer token to the MCP door's credential check (apps.core.credentials), in a
    workspace as reached at an origin: what /api/mcp does with every request. Needs database
    access that sees the live server's rows (the `committed` fixture)."""
    from django_tenants.utils import schema_context

    from apps.core import credentials
    from apps.core.credentials import CredentialRequest

    with schema_context(schema_name):
        return credentials.authenticate(
            CredentialRequest(headers={"authorization": f"Bearer {token}"}, base_url=base_url, door="mcp")
        )
