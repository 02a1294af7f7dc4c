"""Integrations: a person's own accounts at outside services, connected by OAuth 2.0
(apps.platform.connections) through a URL they open, and the providers offered
(apps.platform.providers)."""

from datetime import datetime
from typing import Annotated

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import Marker, tool
from apps.catalogue.shapes import Out
from apps.platform import connections, providers
from apps.platform.models import IntegrationConnection
from apps.platform.permissions import PlatformPerm

ProviderKey = Annotated[
    str, Field(min_length=1, max_length=40, description="The provider's key, from findIntegrationsByTag")
]


class IntegrationOut(Out):
    key: str
    name: str
    description: str
    tags: list[str]
    scopes: list[str]
    available: bool = Field(description="false: the service has no OAuth client for it yet")
    connected: bool = Field(description="You have connected it")


class IntegrationsOut(Out):
    integrations: list[IntegrationOut]


class ConnectionOut(Out):
    provider: str
    name: str
    scopes: list[str]
    connected_at: datetime
    expires_at: datetime | None = Field(description="Of the access token; renewed with the refresh token")
    refreshed_at: datetime | None
    status: str = Field(description="ok, expired (renewed at its next use) or failing (connect it again)")
    error: str = Field(description="Why it is failing")

    @classmethod
    def of(cls, connection: IntegrationConnection) -> "ConnectionOut":
        provider = providers.get(connection.provider)
        status = (
            "failing" if connection.last_error else "expired" if connections.expired(connection) else "ok"
        )
        return cls.of_record(connection, name=provider.name, status=status, error=connection.last_error)


class ConnectionsOut(Out):
    connections: list[ConnectionOut]


class ConnectStartedOut(Out):
    provider: str
    name: str
    url: str = Field(description="The person opens it in their browser to allow the connection")
    expires_at: datetime = Field(description="The link works once, until then")


class DisconnectedOut(Out):
    provider: str
    disconnected: bool
    revoked: bool | None = Field(description="The provider confirmed the revocation (null: it has no way to)")


@tool("findIntegrationsByTag", permission=PlatformPerm.VIEW, title="Find integrations", read_only=True)
def find_integrations_by_tag(
    ctx: ToolContext,
    *,
    tag: Annotated[
        str, Field(max_length=40, description="calendar, mail, accounting, chat, crm...; empty: all")
    ] = "",
) -> IntegrationsOut:
    """Find the outside services (OAuth) one can connect, by tag; connectIntegration connects one."""
    mine = set(IntegrationConnection.objects.filter(user_id=ctx.actor.pk).values_list("provider", flat=True))
    return IntegrationsOut(
        integrations=[
            IntegrationOut(
                key=provider.key,
                name=provider.name,
                description=provider.description,
                tags=list(provider.tags),
                scopes=list(provider.scopes),
                available=provider.configured,
                connected=provider.key in mine,
            )
            for provider in providers.tagged(tag)
        ]
    )


@tool(
    "listConnectedIntegrations",
    permission=PlatformPerm.INTEGRATE,
    title="List connected integrations",
    read_only=True,
)
def list_connected_integrations(ctx: ToolContext) -> ConnectionsOut:
    """List your connected outside accounts (OAuth) and their health; never their tokens."""
    return ConnectionsOut(
        connections=[ConnectionOut.of(found) for found in connections.connections_of(ctx.actor)]
    )


@tool(
    "connectIntegration",
    permission=PlatformPerm.INTEGRATE,
    title="Connect an integration",
    markers=Marker.HIGH_RISK,
)
def connect_integration(ctx: ToolContext, *, provider: ProviderKey) -> ConnectStartedOut:
    """Start connecting your account at an outside service: answers a URL you open to allow it.

    Connected again, the new tokens replace the old. Providers: findIntegrationsByTag."""
    started = connections.start(actor=ctx.actor, provider_key=provider)
    return ConnectStartedOut(
        provider=started.provider.key,
        name=started.provider.name,
        url=started.url,
        expires_at=started.expires_at,
    )


@tool(
    "disconnectIntegration",
    permission=PlatformPerm.INTEGRATE,
    title="Disconnect an integration",
    markers=Marker.DESTRUCTIVE,
)
def disconnect_integration(ctx: ToolContext, *, provider: ProviderKey) -> DisconnectedOut:
    """Disconnect one of your outside accounts: its token revoked at the provider, then deleted."""
    found = connections.connection_of(ctx.actor, provider)
    revoked = connections.disconnect(actor=ctx.actor, connection=found)
    return DisconnectedOut(provider=found.provider, disconnected=True, revoked=revoked)
