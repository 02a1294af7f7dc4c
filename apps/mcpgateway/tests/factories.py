"""MCP servers for tests, registered through the service as an administrator registers them:
`ServerFactory(actor=people["admin"], name="weather", url=loopback.url)`."""

from typing import Any

from apps.catalogue.testing import listed
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
