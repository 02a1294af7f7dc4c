"""Client ID Metadata Documents (MCP 2025-11-25 authorization; draft-ietf-oauth-client-id-metadata-
document): a client that has not registered identifies itself by an https URL, its `client_id`,
where it publishes its metadata. Dynamic registration (`registration`) stays.

django-oauth-toolkit does the protocol (settings.OAUTH2_PROVIDER["CIMD_ENABLED"]): on the first
authorization or token request naming such a URL its validator fetches the document, checks that
its `client_id` is the URL, that the client is public (`token_endpoint_auth_method` "none", no
secret) and has redirect URIs, keeps the client as an Application whose `client_id` is the URL
(so consent, codes, tokens, refresh and "Connected apps" work as for a registered client), fetches
it again when its cache lifetime is over, and backs off from a URL that failed. A document that
does not qualify makes the client unknown: an error page, never a redirect.

What Atrium adds is this fetcher, in the toolkit's `CIMD_METADATA_FETCHER` place:

- the address rules webhooks follow (`apps.apikeys.webhooks.check_response_url`): public
  addresses only, private names and cloud-metadata hosts refused, loopback only where
  settings.WEBHOOKS_ALLOW_LOOPBACK allows it (development and tests); the name is resolved then
  and the connection made to a checked address, TLS verified against the URL's host;
- https only, no redirects, the toolkit's time and size limits;
- the document's metadata must pass the rules registration applies (redirect URIs, grant and
  response types, scope, client name).
"""

import ssl
import time
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from oauth2_provider.cimd import CIMDError, SafeMetadataFetcher
from oauth2_provider.settings import oauth2_settings

from apps.apikeys import webhooks
from apps.apikeys.errors import UnsafeWebhookUrl
from apps.core import outbound
from apps.oauth import registration

# The one authentication method of a client known by its document (RFC 7591's name for none).
PUBLIC = registration.AUTH_METHODS[0]


def is_document_url(client_id: Any) -> bool:
    """Whether `client_id` names a metadata document rather than a registered client (whose
    ids never contain "://")."""
    if not isinstance(client_id, str) or not client_id.lower().startswith("https://"):
        return False
    parts = urlsplit(client_id)
    return bool(parts.hostname) and parts.path not in {"", "/"}


def check_url(url: str) -> None:
    """CIMDError unless `url` may be a client_id: https, a host, a path, no user information,
    fragment or dot segments."""
    if not is_document_url(url):
        raise CIMDError("a client_id URL must be https:// with a host and a path")
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise CIMDError("a client_id URL must not contain user information")
    if parts.fragment or "#" in url:
        raise CIMDError("a client_id URL must not contain a fragment")
    if any(segment in {".", ".."} for segment in parts.path.split("/")):
        raise CIMDError("a client_id URL must not contain . or .. path segments")


def check_metadata(document: dict[str, Any]) -> None:
    """CIMDError when the document's metadata breaks a registration rule. The client's
    authentication method is the toolkit's to check (public clients only)."""
    metadata = {key: value for key, value in document.items() if key != "client_id"}
    metadata["token_endpoint_auth_method"] = PUBLIC
    try:
        registration.check_metadata(metadata)
    except registration.RegistrationRefused as refused:
        raise CIMDError(refused.description) from None


class MetadataFetcher(SafeMetadataFetcher):
    """The toolkit's fetcher under the webhooks' address rules (module docstring)."""

    def fetch(self, client_id: str) -> tuple[dict[str, Any], int]:
        check_url(client_id)
        try:
            target = webhooks.check_response_url(client_id, require_resolution=True)
        except UnsafeWebhookUrl as error:
            raise CIMDError(f"the client_id URL may not be fetched: {error.message}") from None
        # settings.OAUTH_CIMD_CA_FILE: a private certificate authority to trust besides the
        # system's (tests, which serve documents on loopback).
        context = ssl.create_default_context(cafile=settings.OAUTH_CIMD_CA_FILE or None)
        try:
            document, max_age = outbound.get_first(
                target,
                self._read_document,
                headers={"Accept": "application/json, application/*+json"},
                deadline=time.monotonic() + oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS,
                ssl_context=context,
            )
        except outbound.Unreachable as unreachable:
            raise CIMDError(f"could not fetch the client_id document: {unreachable.kind}") from None
        check_metadata(document)
        return document, max_age
