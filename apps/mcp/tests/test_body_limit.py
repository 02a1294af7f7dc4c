"""The MCP request body limit, stated where file content is taken and named by the error of a
request over it (with what a client can do instead)."""

import json

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.test import override_settings

from apps.catalogue import registry
from apps.mcp.consumers import McpConsumer

FILE_CONTENT_TOOLS = ("createFileEntity", "saveChatUploadToFiles", "saveFileToContact", "writeFile")


@pytest.mark.parametrize("name", FILE_CONTENT_TOOLS)
def test_the_schema_of_a_tool_taking_file_content_states_the_limit(name):
    spec = registry.get(name)
    assert spec is not None
    described = spec.definition["inputSchema"]["properties"]["contentBase64"]["description"]
    megabytes = settings.MCP_MAX_BODY_BYTES * 3 // 4 // (1024 * 1024)
    assert f"about {megabytes} MB of file" in described


async def _post(body: bytes) -> tuple[int, dict]:
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/api/mcp",
        "query_string": b"",
        "headers": [(b"host", b"acme.localhost"), (b"content-type", b"application/json")],
    }
    communicator = ApplicationCommunicator(McpConsumer.as_asgi(), scope)
    half = len(body) // 2
    await communicator.send_input({"type": "http.request", "body": body[:half], "more_body": True})
    await communicator.send_input({"type": "http.request", "body": body[half:], "more_body": False})
    start = await communicator.receive_output(10)
    answer = await communicator.receive_output(10)
    await communicator.wait(10)
    return start["status"], json.loads(answer["body"])


@override_settings(MCP_MAX_BODY_BYTES=64 * 1024)
def test_a_request_over_the_limit_is_refused_naming_the_limit_and_what_to_do():
    status, answer = async_to_sync(_post)(b'{"jsonrpc": "2.0", "x": "' + b"A" * 70_000 + b'"}')

    assert status == 413
    message = answer["error"]["message"]
    assert "65536 bytes" in message and "contentBase64" in message and "upload link" in message
    assert answer["error"]["data"] == {"code": "PAYLOAD_TOO_LARGE", "limit": 65536, "file_limit": 46080}
