"""Client ID Metadata Documents (apps.oauth.client_metadata, on django-oauth-toolkit's CIMD): a
client known by the https URL of its metadata document, served here by a real HTTPS server on
loopback with a certificate of a test authority. A web process of its own trusts that authority
(ATRIUM_OAUTH_CIMD_CA_FILE); the test settings allow loopback, as development does (production
takes public addresses only)."""

import datetime
import http.server
import ipaddress
import json
import os
import secrets
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from oauth2_provider.cimd import CIMDError

from apps.core.testing import LiveServer, database_url, start_web
from apps.oauth import client_metadata
from apps.oauth.tests.oauth_client import REDIRECT_URI, OAuthClient, pkce_pair

pytestmark = pytest.mark.live


def _certificate(
    subject: str, key: Any, issuer: x509.Name | None, signer: Any, *, ca: bool
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer or name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if not ca:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    return builder.sign(signer, hashes.SHA256())


@pytest.fixture(scope="module")
def tls(tmp_path_factory) -> tuple[Path, Path, Path]:  # type: ignore[no-untyped-def]
    """(the test authority's certificate, the server's certificate, its key), as PEM files."""
    folder = tmp_path_factory.mktemp("cimd-tls")
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _certificate("Atrium test authority", ca_key, None, ca_key, ca=True)
    key = ec.generate_private_key(ec.SECP256R1())
    certificate = _certificate("localhost", key, ca.subject, ca_key, ca=False)
    paths = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return paths


class _Documents(http.server.BaseHTTPRequestHandler):
    documents: dict[str, Any] = {}

    def do_GET(self) -> None:
        document = self.documents.get(self.path)
        body = json.dumps(document).encode() if document is not None else b"{}"
        self.send_response(200 if document is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def documents(tls) -> Iterator[tuple[str, dict[str, Any]]]:  # type: ignore[no-untyped-def]
    """(the HTTPS server's origin, its documents by path)."""
    _ca, certificate, key = tls
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Documents)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://localhost:{server.server_port}", _Documents.documents
    server.shutdown()


@pytest.fixture(scope="module")
def trusting(tls, django_db_setup, django_db_blocker) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    """A web process that trusts the test authority."""
    with django_db_blocker.unblock():
        url = database_url()
    environment = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "ATRIUM_OAUTH_CIMD_CA_FILE": str(tls[0]),
    }
    server = start_web(environment)
    yield server
    server.stop()


def _publish(documents: tuple[str, dict[str, Any]], **fields: Any) -> str:
    """Serves a client's document at a new path; returns its URL, the client's id."""
    origin, served = documents
    path = f"/clients/{secrets.token_hex(6)}.json"
    url = f"{origin}{path}"
    served[path] = {
        "client_id": url,
        "client_name": "Document client",
        "redirect_uris": [REDIRECT_URI],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **fields,
    }
    return url


def test_the_authorization_server_says_it_takes_metadata_documents_and_still_registers(acme_url):
    metadata = httpx.get(f"{acme_url}/.well-known/oauth-authorization-server").json()

    assert metadata["client_id_metadata_document_supported"] is True
    assert metadata["registration_endpoint"] == f"{acme_url}/oauth/register"


def test_a_client_known_by_its_document_obtains_a_token_for_mcp(trusting, documents, at_mcp):
    url = _publish(documents, client_name="Editor of Documents")
    client = OAuthClient(trusting.url(), url, None, REDIRECT_URI, {})

    tokens = client.obtain(scope="mcp:read offline_access")
    principal = at_mcp(tokens["access_token"], trusting.url())
    refreshed = client.refresh(tokens["refresh_token"])

    assert principal.user.email == "member@acme.example"
    assert "mcp:read" in principal.scopes and "mcp" not in principal.scopes
    assert principal.client == "Editor of Documents"
    assert refreshed.status_code == 200, refreshed.text


@pytest.mark.parametrize(
    "fields",
    [
        {"client_id": "https://elsewhere.example/client.json"},
        {"token_endpoint_auth_method": "client_secret_basic"},
        {"client_secret": "s"},
        {"redirect_uris": ["http://evil.example/callback"]},
        {"grant_types": ["client_credentials"]},
    ],
    ids=["another-client-id", "confidential", "secret", "http-redirect", "grant-type"],
)
def test_a_document_that_does_not_qualify_leaves_the_client_unknown(trusting, documents, fields):
    url = _publish(documents, **fields)
    client = OAuthClient(trusting.url(), url, None, REDIRECT_URI, {})
    _verifier, challenge = pkce_pair()

    response = httpx.get(client.authorization_url(challenge=challenge), timeout=10)

    assert response.status_code == 400
    assert "location" not in response.headers


def test_a_redirect_uri_the_document_does_not_list_is_refused(trusting, documents):
    url = _publish(documents)
    client = OAuthClient(trusting.url(), url, None, "http://127.0.0.1:9/elsewhere", {})
    _verifier, challenge = pkce_pair()

    response = httpx.get(client.authorization_url(challenge=challenge), timeout=10)

    assert response.status_code == 400
    assert "location" not in response.headers


def test_a_server_that_does_not_trust_the_documents_certificate_fetches_nothing(acme_url, documents):
    url = _publish(documents)
    client = OAuthClient(acme_url, url, None, REDIRECT_URI, {})
    _verifier, challenge = pkce_pair()

    response = httpx.get(client.authorization_url(challenge=challenge), timeout=10)

    assert response.status_code == 400


@pytest.mark.parametrize(
    "url",
    [
        "https://10.0.0.7/client.json",
        "https://169.254.169.254/latest/client.json",
        "https://metadata.google.internal/client.json",
        "https://printer.local/client.json",
        "http://app.example/client.json",
        "https://app.example/",
        "https://user@app.example/client.json",
        "https://app.example/a/../client.json",
    ],
)
def test_documents_on_private_addresses_or_at_bad_urls_are_never_fetched(url):
    with pytest.raises(CIMDError):
        client_metadata.MetadataFetcher().fetch(url)


@pytest.mark.parametrize(
    ("client_id", "expected"),
    [
        ("https://app.example/oauth/client.json", True),
        ("https://app.example/", False),
        ("http://app.example/client.json", False),
        ("4f2c8b1e9a", False),
        (None, False),
    ],
)
def test_what_counts_as_a_document_url(client_id, expected):
    assert client_metadata.is_document_url(client_id) is expected
