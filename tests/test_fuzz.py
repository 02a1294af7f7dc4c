"""Fuzzing over real HTTP, bounded so that it runs with the rest of the suite (a minute or two).

Bad input gets a clear error in the door's own format and loses nothing: no answer here may be a
5xx, a JSON-RPC internal error (-32603) or a tool result saying it failed "because of an error on
the server", and the web process may log no traceback while it is fuzzed.

- The JSON APIs: Schemathesis generates requests, valid and invalid, from the OpenAPI schema the
  server publishes, with every operation's credentials (a body behind a refused credential would
  never be read); then a fixed hostile corpus goes into every property of every JSON body (what
  a JSON encoder cannot write: `1e400`, nesting 5,000 deep, lone surrogates).
- The MCP endpoint: every tool the catalogue has, in one session, a handful of calls each. Each
  call starts from arguments made from the tool's input schema (every property it declares, with
  a value of its type, format or first choice), over which the tool's sample arguments are laid
  when it has one (the contract test's, `apps.catalogue.testing.samples`, created here as the
  workspace's owner): so a tool the catalogue gains is fuzzed with nothing more written. Then
  every value of one kind is made hostile: NUL, lone surrogates, odd text as long as the schema
  allows, text far longer, the largest and smallest numbers the schema allows and numbers beyond
  64 bits and a double's range, nesting just below the doors' limit and beyond it. What is beyond
  the doors' limits must be refused at the door, as a JSON-RPC error saying why, before any tool
  runs. A call that asks for confirmation is confirmed, so that the hostile values reach the tool.
  The hostile text and the numbers out of range go through the stateless 2026-07-28 door too.

Everything happens in a workspace of its own, deleted afterwards, on a web process of its own
(with a data-rights secret and no rate limit), so nothing it writes meets another test.
"""

import json
import os
import re
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from django.db import connection, transaction
from django_tenants.utils import schema_context
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from apps.core.testing import LiveServer, database_url, start_web
from apps.mcp.testing import McpHttp, pat_and_key

pytestmark = pytest.mark.live

SECRET = f"fuzz-data-request-{secrets.token_hex(16)}"
# Schemathesis examples per operation and generation mode (valid, invalid).
EXAMPLES = 20
DEEP = b"[" * 5000 + b"]" * 5000
# Text a store keeps but that trips careless code: controls, bidi overrides, line and paragraph
# separators, a byte-order mark, astral characters, quotes, markup, SQL and template syntax.
ODD = (
    "Zoë \x01\x1f\x7f\t\r\n\u202e\u2028\u2029\ufeff\ufffd \U0001f600\U0001d11e 'q\"\\ "
    "<b>&amp;</b> %s%_ ;DROP TABLE t;-- ${x} {{x}} {% x %} "
)


@dataclass
class Fuzzed:
    server: LiveServer
    host: str
    schema_name: str
    owner: str
    log: Path
    # New credentials of the owner (a personal access token and an API key): the fuzzing of the
    # key endpoints revokes keys, so each part starts with its own.
    mint: Callable[[], dict[str, str]]

    @property
    def url(self) -> str:
        return self.server.url()


@pytest.fixture(scope="module")
def fuzzed(django_db_setup, django_db_blocker, tmp_path_factory) -> Iterator[Fuzzed]:  # type: ignore[no-untyped-def]
    from apps.datarights.models import DataRequest
    from apps.tenancy.models import Workspace
    from apps.tenancy.services import workspace_create, workspace_delete

    marker = secrets.token_hex(4)
    host, owner = f"fuzz-{marker}.test", f"owner@fuzz-{marker}.test"
    with django_db_blocker.unblock():
        url = database_url()
        workspace = workspace_create(name=f"Fuzz {marker}", domains=[host], owner_email=owner)
        connection.set_schema_to_public()

    def mint() -> dict[str, str]:
        with django_db_blocker.unblock():
            credentials = pat_and_key(owner, workspace.schema_name)
            connection.set_schema_to_public()
        return credentials

    log = tmp_path_factory.mktemp("fuzz") / "web.log"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATA_REQUEST_SHARED_SECRET": SECRET,
        "DATA_REQUEST_RATE_LIMIT": "1000000",
    }
    server = start_web(env, log=log)
    try:
        yield Fuzzed(server, host, workspace.schema_name, owner, log, mint)
    finally:
        server.stop()
        with django_db_blocker.unblock():
            connection.set_schema_to_public()
            DataRequest.objects.filter(host=host).delete()
            workspace_delete(workspace=Workspace.objects.get(pk=workspace.pk))
            connection.set_schema_to_public()


@pytest.fixture(scope="module")
def api_document(fuzzed) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    answer = httpx.get(f"{fuzzed.url}/api/schema/?format=json", headers={"Host": fuzzed.host}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def no_traceback_since(log: Path, offset: int) -> str:
    text = log.read_text(errors="replace")[offset:]
    return text if "Traceback" in text else ""


def headers_for(fuzzed: Fuzzed, path: str, credentials: dict[str, str]) -> dict[str, str]:
    if path == "/api/data-request":
        return {"Host": fuzzed.host, "Authorization": f"Bearer {SECRET}"}
    return {"Host": fuzzed.host, **credentials}


# --- the JSON APIs --------------------------------------------------------------------------------


def test_no_generated_request_to_the_json_apis_gets_a_server_error(fuzzed, api_document):
    schema = schemathesis.openapi.from_dict(api_document)
    schema.config.update(base_url=fuzzed.url)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10
    start = len(fuzzed.log.read_text(errors="replace"))
    failures: list[str] = []
    exercised = dict.fromkeys(GenerationMode, 0)

    for operation in operations:
        headers = headers_for(fuzzed, operation.path, fuzzed.mint())
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode, headers=headers))
            @settings(
                deadline=None,
                suppress_health_check=list(HealthCheck),
                max_examples=EXAMPLES,
                database=None,
                derandomize=True,
            )
            def exercise(case) -> None:  # type: ignore[no-untyped-def]
                response = case.call(timeout=30)
                if response.status_code >= 500:
                    failures.append(f"{case.method} {case.formatted_path}: {response.status_code}")

            try:
                exercise()
            except Unsatisfiable:
                # Nothing of it can be made invalid (no body, no required parameter).
                assert mode is GenerationMode.NEGATIVE, operation.label
                continue
            exercised[mode] += 1

    assert exercised[GenerationMode.POSITIVE] == len(operations)
    assert exercised[GenerationMode.NEGATIVE] >= len(operations) // 2
    assert failures == []
    assert no_traceback_since(fuzzed.log, start) == ""


def request_properties(document: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    content = operation["requestBody"].get("content", {}).get("application/json", {})
    schema = content.get("schema", {})
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return sorted(schema.get("properties", {}))


# Raw JSON values, as bytes: most of them no JSON encoder writes.
HOSTILE_VALUES = [
    b'"\\ud800"',
    b'"a\\udc00b"',
    b'"a\\u0000b"',
    b"1e400",
    b"-1e400",
    b"18446744073709551616",
    b"Infinity",
    DEEP,
    b"[" * 70 + b"]" * 70,
    json.dumps("x" * 100_000).encode(),
    json.dumps(ODD).encode(),
    b'{"\\u0000": 1}',
]
HOSTILE_BODIES = [DEEP, b'"\\ud800"', b'{"a": Infinity}', b"[" * 65 + b"]" * 65, b"{", b"\xff\xfe"]


def documented_error(path: str, response: httpx.Response) -> bool:
    """Whether a 4xx answer is in the error format its door documents: OAuth's (RFC 6749 5.2:
    `error` a code, or a 401 challenge) on /oauth/, JSON-RPC's on /api/mcp, SPEC 7.1's elsewhere."""
    try:
        body = response.json()
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    if path.startswith("/oauth/"):
        challenged = response.status_code == 401 and "WWW-Authenticate" in response.headers
        return isinstance(error, str) or challenged
    if path == "/api/mcp" and isinstance(error, dict):
        return isinstance(error.get("code"), int) and isinstance(error.get("message"), str)
    return isinstance(error, dict) and {"code", "message"} <= set(error)


def test_hostile_json_in_every_body_property_is_a_clear_error_in_the_spec_format(fuzzed, api_document):
    credentials = fuzzed.mint()
    key_id = httpx.post(
        f"{fuzzed.url}/api/api-keys",
        json={"label": "fuzz"},
        headers=headers_for(fuzzed, "", credentials),
        timeout=30,
    ).json()["id"]
    start = len(fuzzed.log.read_text(errors="replace"))
    failures: list[str] = []
    sent = 0
    with httpx.Client(base_url=fuzzed.url, timeout=30) as http:
        for path, methods in api_document["paths"].items():
            for method, operation in methods.items():
                if not isinstance(operation, dict) or "requestBody" not in operation:
                    continue
                url = (
                    path.replace("{key_id}", str(key_id))
                    .replace("{conversation_uuid}", "0" * 32)
                    .replace("{client_id}", "nobody")
                )
                headers = {**headers_for(fuzzed, path, credentials), "Content-Type": "application/json"}
                if path == "/api/mcp":
                    headers["Accept"] = "application/json, text/event-stream"
                bodies = HOSTILE_BODIES + [
                    b'{"' + name.encode() + b'": ' + value + b"}"
                    for name in request_properties(api_document, operation)
                    for value in HOSTILE_VALUES
                ]
                for body in bodies:
                    response = http.request(method.upper(), url, content=body, headers=headers)
                    sent += 1
                    if response.status_code >= 500 or (
                        response.status_code >= 400 and not documented_error(path, response)
                    ):
                        failures.append(f"{method.upper()} {path} {body[:60]!r}: {response.status_code}")

    assert sent >= 100
    assert failures == []
    assert no_traceback_since(fuzzed.log, start) == ""


# --- the MCP endpoint -----------------------------------------------------------------------------


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}.get(type(value), "null")


def _types(schema: dict[str, Any]) -> list[str]:
    kinds = schema.get("type", [])
    return [kinds] if isinstance(kinds, str) else list(kinds)


def _resolve(schema: Any, root: dict[str, Any], value: Any) -> dict[str, Any]:
    """The part of `schema` that describes `value`: references followed, the union's member of
    the value's type chosen."""
    if not isinstance(schema, dict):
        return {}
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        kind = _json_type(value)
        for option in options:
            option = _resolve(option, root, value)
            kinds = _types(option)
            if kind in kinds or (kind == "integer" and "number" in kinds):
                return option
        return {}
    return schema


# What a string of a format is made as (a URL no one answers: a tool that fetches it fails at once).
FORMATS = {
    "date-time": "2026-03-02T09:30:00Z",
    "date": "2026-03-02",
    "time": "09:30:00",
    "email": "fuzz@example.org",
    "uri": "https://127.0.0.1:9/fuzz",
    "uuid": "00000000-0000-4000-8000-000000000000",
}
LEFT_OUT = object()


def made_from(schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
    """A value `schema` describes, every property of an object filled (LEFT_OUT where none can be
    made: a string of a pattern); the arguments of a tool with no sample, and under a sample's."""
    if not isinstance(schema, dict) or depth > 6:
        return LEFT_OUT
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if schema.get("default") is not None:
        return schema["default"]
    options = [
        option for option in schema.get("anyOf") or schema.get("oneOf") or [] if option.get("type") != "null"
    ]
    if options:
        return made_from(options[0], root, depth)
    kinds = _types(schema)
    if "object" in kinds or "properties" in schema:
        made = {name: made_from(part, root, depth + 1) for name, part in schema.get("properties", {}).items()}
        return {name: value for name, value in made.items() if value is not LEFT_OUT}
    if "array" in kinds:
        item = made_from(schema.get("items"), root, depth + 1)
        return [] if item is LEFT_OUT else [item] * max(1, schema.get("minItems", 1))
    if "string" in kinds:
        if "pattern" in schema:
            return LEFT_OUT
        return FORMATS.get(schema.get("format", ""), _sized("fuzz ", {**schema, "maxLength": 12}))
    if "integer" in kinds or "number" in kinds:
        return min(max(1, _bound(schema, "minimum", 1)), _bound(schema, "maximum", 2**31))
    if "boolean" in kinds:
        return True
    return LEFT_OUT


def base_arguments(schema: dict[str, Any], sample: dict[str, Any] | None) -> dict[str, Any]:
    made = made_from(schema, schema)
    return {**(made if isinstance(made, dict) else {}), **(sample or {})}


def _nest(value: Any, levels: int) -> Any:
    nested: Any = 1
    for _ in range(levels):
        nested = {"a": nested} if isinstance(value, dict) else [nested]
    return nested


@dataclass
class Mutation:
    """How one kind of value is made hostile: text, integers, numbers, containers."""

    name: str
    text: Callable[[dict[str, Any]], str] | None = None
    integer: Callable[[dict[str, Any]], int] | None = None
    number: Callable[[dict[str, Any]], float] | None = None
    # Containers are replaced by nesting this many levels deep (below the 64 every door reads).
    nesting: int = 0
    # What reads past the doors' limits (apps.core.json_input) must be refused before any tool:
    # the JSON-RPC error code and, in its message, one of these words.
    refused: tuple[int, tuple[str, ...]] | None = None

    def apply(self, value: Any, schema: Any, root: dict[str, Any], depth: int = 0) -> Any:
        schema = _resolve(schema, root, value)
        if self.nesting and depth > 0 and isinstance(value, dict | list):
            return _nest(value, self.nesting - depth)
        if isinstance(value, dict):
            properties = schema.get("properties", {})
            extra = schema.get("additionalProperties")
            return {
                key: self.apply(item, properties.get(key, extra), root, depth + 1)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [self.apply(item, schema.get("items"), root, depth + 1) for item in value]
        if isinstance(value, bool) or value is None:
            return value
        if isinstance(value, str):
            plain = not {"enum", "const", "format", "pattern"} & set(schema)
            return self.text(schema) if self.text and plain else value
        kinds = _types(schema) or [_json_type(value)]
        if "integer" in kinds and self.integer:
            return self.integer(schema)
        if "number" in kinds and self.number:
            return self.number(schema)
        return value


def _sized(text: str, schema: dict[str, Any]) -> str:
    """`text` repeated or cut to the longest the schema allows (5,000 characters at most)."""
    length = min(schema.get("maxLength", 5_000), 5_000)
    length = max(length, schema.get("minLength", 0))
    return (text * (length // len(text) + 1))[:length]


def _bound(schema: dict[str, Any], name: str, default: float) -> Any:
    if name in schema:
        return schema[name]
    exclusive = schema.get(f"exclusive{name.title()}")
    if exclusive is not None:
        return exclusive - 1 if name == "maximum" else exclusive + 1
    return default


MUTATIONS = [
    Mutation("nul", text=lambda schema: "a\x00b"),
    Mutation("surrogate", text=lambda schema: "a\ud800b"),
    Mutation("odd text", text=lambda schema: _sized(ODD, schema)),
    Mutation("too long", text=lambda schema: "x" * 100_000),
    Mutation(
        "largest numbers",
        integer=lambda schema: _bound(schema, "maximum", 2**63 - 1),
        number=lambda schema: _bound(schema, "maximum", 1.7976931348623157e308),
    ),
    Mutation(
        "smallest numbers",
        integer=lambda schema: _bound(schema, "minimum", -(2**63)),
        number=lambda schema: _bound(schema, "minimum", -1.7976931348623157e308),
    ),
    Mutation("deep nesting", nesting=60),
    # Beyond what the doors read (apps.core.json_input): refused before any tool, as JSON-RPC errors.
    Mutation(
        "beyond 64 bits",
        integer=lambda schema: 2**64,
        number=lambda schema: BEYOND_DOUBLE,
        refused=(-32602, ("64 bits", "too large")),
    ),
    Mutation("too deep", nesting=100, refused=(-32600, ("nested deeper",))),
]
# Written as 1e400 in the body (no JSON encoder writes a number beyond a double's range).
BEYOND_DOUBLE = 1.2345678901234567e300
# The mutations that also go through the stateless door.
STATELESS = {"nul", "surrogate", "beyond 64 bits"}
TOKEN = re.compile(r'"confirmationToken": "([^"]+)"')


def _answer(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a POST's answer (a JSON body, or the last event of a stream)."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        events = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
        return json.loads(events[-1]) if events else {}
    try:
        return response.json()
    except ValueError:
        return {}


def _text(message: dict[str, Any]) -> str:
    result = message.get("result") or {}
    return "\n".join(block.get("text", "") for block in result.get("content", []) if isinstance(block, dict))


STATELESS_VERSION = "2026-07-28"


@dataclass
class Session:
    client: McpHttp
    failures: list[str] = field(default_factory=list)
    calls: int = 0

    def call(
        self, tool: str, arguments: dict[str, Any], what: str, *, stateless: bool = False
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"jsonrpc": "2.0", "id": self.calls + 1000, "method": "tools/call"}
        request["params"] = {"name": tool, "arguments": arguments}
        headers = self.client.headers()
        if stateless:
            # A request of its own, with no session: the version, capabilities and headers of
            # 2026-07-28 (apps.mcp.stateless).
            headers.pop("Mcp-Session-Id", None)
            headers.update(
                {"MCP-Protocol-Version": STATELESS_VERSION, "Mcp-Method": "tools/call", "Mcp-Name": tool}
            )
            request["params"]["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        # Encoded here: httpx writes UTF-8 as it is, which a lone surrogate cannot be; the standard
        # library escapes it (`\\ud800`), as a client in another language would send it. A number
        # beyond a double's range is written as no encoder writes it.
        body = json.dumps(request).encode().replace(repr(BEYOND_DOUBLE).encode(), b"1e400")
        try:
            response = self.client.http.post("/api/mcp", content=body, headers=headers)
        except httpx.TimeoutException as error:
            raise AssertionError(f"{tool} ({what}): no answer in time ({error})") from error
        self.calls += 1
        message = _answer(response)
        error = message.get("error") or {}
        if response.status_code >= 500:
            self.failures.append(f"{tool} ({what}): HTTP {response.status_code}")
        elif error.get("code") == -32603:
            self.failures.append(f"{tool} ({what}): {error.get('message')}")
        elif "error on the server" in _text(message):
            self.failures.append(f"{tool} ({what}): {_text(message)[:200]}")
        return message

    def expect_refused(self, tool: str, message: dict[str, Any], mutation: Mutation) -> None:
        assert mutation.refused is not None
        code, words = mutation.refused
        error = message.get("error") or {}
        text = str(error.get("message", ""))
        if error.get("code") != code or not any(word in text for word in words):
            self.failures.append(f"{tool} ({mutation.name}): not refused at the door: {str(message)[:200]}")


def sample_arguments(schema_name: str, owner: str) -> dict[str, dict[str, Any]]:
    """Each tool's sample arguments (apps.catalogue.testing), made in the fuzzed workspace as its
    owner and committed, as the web process must see them."""
    from apps.accounts.models import User
    from apps.catalogue.testing import samples

    made: dict[str, dict[str, Any]] = {}
    with schema_context(schema_name):
        user = User.objects.get(email=owner)
        for name, sampler in samples().items():
            try:
                with transaction.atomic():
                    made[name] = sampler(user).arguments
            except Exception:  # noqa: S112  (a sample that needs more than a workspace: skipped, counted below)
                continue
    return made


def test_every_tool_answers_hostile_arguments_without_failing_on_the_server(fuzzed, django_db_blocker):
    from apps.catalogue import registry

    with django_db_blocker.unblock():
        arguments = sample_arguments(fuzzed.schema_name, fuzzed.owner)
        connection.set_schema_to_public()
    client = McpHttp(fuzzed.url, fuzzed.mint(), timeout=60)
    client.http.headers["Host"] = fuzzed.host
    session = Session(client)
    start = len(fuzzed.log.read_text(errors="replace"))
    try:
        client.initialize()
        tools: dict[str, dict[str, Any]] = {}
        cursor = None
        while True:
            page = client.request("tools/list", {"cursor": cursor} if cursor else {}).json()["result"]
            tools.update((tool["name"], tool) for tool in page["tools"])
            cursor = page.get("nextCursor")
            if not cursor:
                break
        # The whole catalogue: the owner of a workspace with every area may use every tool.
        assert set(tools) == {spec.name for spec in registry.all_tools() if not spec.fixture}
        assert len(arguments) >= len(tools) * 9 // 10, sorted(set(tools) - set(arguments))
        bases = {
            name: base_arguments(tool["inputSchema"], arguments.get(name)) for name, tool in tools.items()
        }
        # Every tool that takes arguments gets some, sample or not.
        assert [
            name for name, tool in tools.items() if tool["inputSchema"].get("properties") and not bases[name]
        ] == []
        for spec in registry.all_tools():
            if spec.is_first_call:
                session.call(spec.name, arguments.get(spec.name, {}), "first call")
                session.call(spec.name, arguments.get(spec.name, {}), "first call", stateless=True)

        for name, tool in tools.items():
            schema = tool["inputSchema"]
            for mutation in MUTATIONS:
                hostile = mutation.apply(bases[name], schema, schema)
                message = session.call(name, hostile, mutation.name)
                refused = mutation.refused is not None and hostile != bases[name]
                if refused:
                    session.expect_refused(name, message, mutation)
                token = None if refused else TOKEN.search(_text(message))
                if token is not None:
                    session.call(
                        name, {**hostile, "confirmationToken": token.group(1)}, f"{mutation.name}, confirmed"
                    )
                if mutation.name in STATELESS:
                    message = session.call(name, hostile, f"{mutation.name}, 2026-07-28", stateless=True)
                    if refused:
                        session.expect_refused(name, message, mutation)
    finally:
        client.close()

    assert session.calls >= len(tools) * (len(MUTATIONS) + len(STATELESS))
    assert session.failures == []
    assert no_traceback_since(fuzzed.log, start) == ""
