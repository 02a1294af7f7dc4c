"""MCP servers for tests, registered through the service as an administrator registers them:
`ServerFactory(actor=people["admin"], name="weather", url=loopback.url)`."""

from typing import Any

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows
from apps.mcpgateway import services
from apps.mcpgateway.models import DiscoveredTool, ExternalServer, ServerCall

_count = iter(range(1, 1_000_000))


class ServerFactory(ServiceFactory):
    class Meta:
        model = ExternalServer

    _service = staticmethod(services.server_create)


def server(actor: Any, **fields: Any) -> ExternalServer:
    fields.setdefault("name", f"server-{next(_count)}")
    fields.setdefault("url", "http://127.0.0.1:9/mcp")
    return ServerFactory(actor=actor, **fields)


@access_rows("mcpgateway.ExternalServer")
def _servers(people: dict[str, Any]) -> AccessRows:
    admin, member = people["admin"], people["member"]
    return AccessRows(
        own={
            "member": [server(admin, visibility="private", roles=[member.role])],
            "admin": [server(admin, visibility="private")],
        },
        everyone=[server(admin)],
        listed=lambda person: listed(person, "mcpListServers", {"limit": 100}),
    )


@access_rows("mcpgateway.DiscoveredTool")
def _tools(people: dict[str, Any]) -> AccessRows:
    admin, member = people["admin"], people["member"]
    shared = DiscoveredTool.objects.create(server=server(admin), name="everyone_tool")
    theirs = DiscoveredTool.objects.create(
        server=server(admin, visibility="private", roles=[member.role]), name="member_tool"
    )
    hidden = DiscoveredTool.objects.create(server=server(admin, visibility="private"), name="admin_tool")
    return AccessRows(own={"member": [theirs], "admin": [hidden]}, everyone=[shared])


@access_rows("mcpgateway.ServerCall")
def _calls(people: dict[str, Any]) -> AccessRows:
    admin, member, owner = people["admin"], people["member"], people["owner"]
    shared = server(admin)

    def logged(actor: Any) -> ServerCall:
        return ServerCall.objects.create(server=shared, actor=actor, kind="tools", outcome="ok")

    return AccessRows(own={"member": [logged(member)], "owner": [logged(owner)]})


@factories.privacy_rows("mcpgateway")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """A server the owner registered for no role (administrators alone use it) with a cached tool,
    and the owner's own call on a server everyone uses: the marker in every text field."""
    owner = people["owner"]
    hidden = server(
        owner,
        name=f"{marker}-server",
        title=f"{marker} title",
        description=f"{marker} description",
        url=f"http://127.0.0.1:9/{marker}",
        visibility="private",
    )
    DiscoveredTool.objects.create(
        server=hidden, name=f"{marker}_tool", title=f"{marker} tool", description=f"{marker} does"
    )
    ServerCall.objects.create(
        server=server(owner),
        actor=owner,
        kind="call",
        target=f"{marker}_tool",
        outcome="ok",
        detail=f"{marker} detail",
    )
