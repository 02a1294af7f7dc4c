"""The outside services a person may connect by OAuth 2.0 (findIntegrationsByTag,
connectIntegration): their endpoints, scopes and tags, in code.

Each provider speaks the authorization-code grant with PKCE (RFC 6749, RFC 7636); `revoke_url` is
its RFC 7009 revocation endpoint, when it has one. The service's operators register an OAuth
client with each provider they offer and give its id and secret in `settings.ATRIUM_INTEGRATIONS`
(the environment variable of the same name, a JSON object: `{"google": {"client_id": "...",
"client_secret": "..."}}`); the same entry may replace a provider's URLs (`authorize_url`,
`token_url`, `revoke_url`: a tenant of Microsoft's, a test's server on loopback). A provider
without a client id is listed, and says so when connected.
"""

from dataclasses import dataclass, field, replace
from typing import Any

from django.conf import settings

from apps.platform import errors


@dataclass(frozen=True)
class Provider:
    key: str
    name: str
    description: str
    tags: tuple[str, ...]
    authorize_url: str
    token_url: str
    revoke_url: str = ""
    scopes: tuple[str, ...] = ()
    # Parameters of the authorization request beyond RFC 6749's (Google's offline access).
    authorize_params: dict[str, str] = field(default_factory=dict)
    client_id: str = ""
    client_secret: str = ""

    @property
    def configured(self) -> bool:
        return bool(self.client_id)


PROVIDERS = (
    Provider(
        "google",
        "Google Workspace",
        "Gmail, Google Calendar, Drive and Contacts of a Google account",
        ("calendar", "mail", "files", "contacts", "documents"),
        "https://accounts.google.com/o/oauth2/v2/auth",
        "https://oauth2.googleapis.com/token",
        "https://oauth2.googleapis.com/revoke",
        ("openid", "email", "https://www.googleapis.com/auth/calendar"),
        {"access_type": "offline", "prompt": "consent"},
    ),
    Provider(
        "microsoft",
        "Microsoft 365",
        "Outlook mail and calendar, OneDrive and Teams of a Microsoft account",
        ("calendar", "mail", "files", "chat", "contacts", "documents"),
        "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
        "https://login.microsoftonline.com/common/oauth2/v2.0/token",
        "",
        ("offline_access", "User.Read", "Calendars.ReadWrite", "Mail.Read"),
    ),
    Provider(
        "xero",
        "Xero",
        "Xero's ledger: invoices, bills, contacts and bank lines of an organisation",
        ("accounting", "invoices", "finance"),
        "https://login.xero.com/identity/connect/authorize",
        "https://identity.xero.com/connect/token",
        "https://identity.xero.com/connect/revocation",
        ("offline_access", "accounting.transactions", "accounting.contacts"),
    ),
    Provider(
        "quickbooks",
        "QuickBooks Online",
        "QuickBooks Online's ledger of a company",
        ("accounting", "invoices", "finance"),
        "https://appcenter.intuit.com/connect/oauth2",
        "https://oauth.platform.intuit.com/oauth2/v1/tokens/bearer",
        "https://developer.api.intuit.com/v2/oauth2/tokens/revoke",
        ("com.intuit.quickbooks.accounting",),
    ),
    Provider(
        "slack",
        "Slack",
        "Channels and messages of a Slack workspace",
        ("chat", "notifications"),
        "https://slack.com/oauth/v2/authorize",
        "https://slack.com/api/oauth.v2.access",
        "",
        ("chat:write", "channels:read"),
    ),
    Provider(
        "github",
        "GitHub",
        "Repositories, issues and pull requests of a GitHub account",
        ("code", "developer", "issues"),
        "https://github.com/login/oauth/authorize",
        "https://github.com/login/oauth/access_token",
        "",
        ("repo", "read:user"),
    ),
    Provider(
        "hubspot",
        "HubSpot",
        "HubSpot CRM contacts, companies and deals",
        ("crm", "marketing", "contacts", "sales"),
        "https://app.hubspot.com/oauth/authorize",
        "https://api.hubapi.com/oauth/v1/token",
        "",
        ("crm.objects.contacts.read", "crm.objects.deals.read"),
    ),
)
KEYS = tuple(provider.key for provider in PROVIDERS)


def _with_settings(provider: Provider) -> Provider:
    given: dict[str, Any] = (settings.ATRIUM_INTEGRATIONS or {}).get(provider.key) or {}

    def value(name: str) -> str:
        return str(given.get(name) or getattr(provider, name))

    return replace(
        provider,
        client_id=value("client_id"),
        client_secret=value("client_secret"),
        authorize_url=value("authorize_url"),
        token_url=value("token_url"),
        revoke_url=value("revoke_url"),
    )


def all_providers() -> list[Provider]:
    return [_with_settings(provider) for provider in PROVIDERS]


def get(key: str) -> Provider:
    """The provider `key` names (case aside), with its settings; UnknownIntegration otherwise."""
    wanted = key.strip().lower()
    for provider in PROVIDERS:
        if provider.key == wanted:
            return _with_settings(provider)
    raise errors.UnknownIntegration(provider=key, known=", ".join(KEYS))


def tagged(tag: str) -> list[Provider]:
    wanted = tag.strip().lower()
    return [provider for provider in all_providers() if not wanted or wanted in provider.tags]
