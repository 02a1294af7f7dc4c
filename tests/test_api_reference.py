"""The API reference is complete and valid: the OpenAPI 3.1 document each workspace serves, checked
against the specification with openapi-spec-validator, covers every JSON API the URL resolver
knows (and the MCP endpoint routed before Django), at the workspace's own host."""

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from apps.core.api import reference
from config import asgi

pytestmark = pytest.mark.django_db

# Where the JSON doors live (SPEC 4): the APIs, the authorization server, the discovery documents.
JSON_PREFIXES = ("api/", "oauth/", ".well-known/")
# A sample value per path converter, to resolve a schema path back to its URL pattern.
SAMPLES = {"integer": "1", "string": "sample"}
METHODS = {"get", "put", "post", "delete", "patch"}


def schema_of(client: Client) -> dict[str, Any]:
    answer = client.get("/api/schema/", headers={"Accept": "application/json"})
    assert answer.status_code == 200
    return answer.json()


def patterns(resolvers: list[Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(full route, view) of every URL pattern of the workspace URLconf."""
    found: list[tuple[str, Any]] = []
    for entry in resolvers:
        if isinstance(entry, URLResolver):
            found += patterns(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            found.append((prefix + str(entry.pattern), entry.callback))
    return found


def is_reference_itself(route: str, view: Any) -> bool:
    """The schema and the pages that read it, and the catch-all that answers unknown /api/ paths."""
    name = getattr(view, "__name__", "")
    cls = getattr(view, "cls", None) or getattr(view, "view_class", None)
    return (
        route in ("api/schema/", "^api/")
        or name in ("api_not_found", "redoc_bundle")
        or (cls is not None and cls.__module__.startswith(("drf_spectacular", reference.__name__)))
    )


def json_api_routes(client: Client) -> set[str]:
    """Every route under the JSON prefixes, and every route without parameters elsewhere whose
    GET answers JSON to a browser's Accept (the health probes)."""
    found = set()
    for route, view in patterns(get_resolver("config.urls_tenant").url_patterns):
        if is_reference_itself(route, view):
            continue
        if route.startswith(JSON_PREFIXES):
            found.add(route)
        elif "<" not in route and "^" not in route:
            answer = client.get(f"/{route}", headers={"Accept": "text/html"})
            if answer.get("Content-Type", "").startswith("application/json"):
                found.add(route)
    return found


def route_of(path: str, operation_parameters: list[dict[str, Any]]) -> str:
    kinds = {
        p["name"]: p.get("schema", {}).get("type", "string")
        for p in operation_parameters
        if p["in"] == "path"
    }
    filled = re.sub(r"\{(\w+)\}", lambda match: SAMPLES.get(kinds.get(match[1], "string"), "sample"), path)
    return resolve(filled, urlconf="config.urls_tenant").route


def test_the_schema_is_valid_openapi_3_1(acme_client):
    document = schema_of(acme_client)

    assert document["openapi"] == "3.1.0"
    validate(document, cls=OpenAPIV31SpecValidator)


def test_every_json_api_of_the_url_resolver_is_in_the_schema(acme_client):
    document = schema_of(acme_client)
    documented = set()
    for path, item in document["paths"].items():
        if path == asgi.MCP_PATH:
            continue  # served before Django: resolving it would find the /api/ catch-all
        for method, operation in item.items():
            if method in METHODS:
                documented.add(route_of(path, operation.get("parameters", [])))

    expected = json_api_routes(acme_client)
    assert len(expected) >= 20
    assert expected - documented == set()
    assert {"healthz", "readyz", "oauth/token", "api/me"} <= expected


def test_the_mcp_endpoint_routed_before_django_is_in_the_schema(acme_client):
    item = schema_of(acme_client)["paths"][asgi.MCP_PATH]

    assert set(item) == {"post", "get", "delete"}
    headers = {p["name"] for p in item["post"]["parameters"] if p["in"] == "header"}
    assert {"Mcp-Session-Id", "MCP-Protocol-Version"} <= headers
    assert {"401", "403", "404", "406"} <= set(item["post"]["responses"])
    assert "WWW-Authenticate" in item["post"]["responses"]["401"]["headers"]


def test_servers_is_the_workspace_s_own_base_url(acme_client, globex_client):
    assert schema_of(acme_client)["servers"][0]["url"] == "http://127.0.0.1"
    assert schema_of(globex_client)["servers"][0]["url"] == "http://127.0.0.2"
    oauth = schema_of(globex_client)["components"]["securitySchemes"]["oauth2"]["flows"]["authorizationCode"]
    assert oauth["tokenUrl"] == "http://127.0.0.2/oauth/token"
    assert set(oauth["scopes"]) == {"mcp", "mcp:read", "mcp:write", "offline_access"}


def test_the_workspace_apis_errors_are_in_the_spec_format(acme_client):
    document = schema_of(acme_client)
    error = document["components"]["schemas"]["ErrorDetail"]

    assert {"code", "message"} <= set(error["required"])
    refused = document["paths"]["/api/api-keys"]["get"]["responses"]["401"]["content"]["application/json"]
    assert refused["schema"]["$ref"] == "#/components/schemas/Error"
    assert document["components"]["schemas"]["Error"]["required"] == ["error"]


def test_the_reference_page_names_no_other_host(acme_client):
    page = acme_client.get("/api/docs/")
    bundle = acme_client.get("/api/docs/redoc.standalone.js")

    assert page.status_code == 200
    assert not re.search(r"(src|href)=\"(https?:)?//", page.content.decode())
    assert "fonts.googleapis.com" not in page.content.decode()
    assert bundle.status_code == 200 and bundle["Content-Type"].startswith("text/javascript")
    assert b"cdn.redoc.ly" not in bundle.content
    assert (
        acme_client.get(
            "/api/docs/redoc.standalone.js", headers={"If-None-Match": bundle["ETag"]}
        ).status_code
        == 304
    )
    policy = page["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src" not in policy


@pytest.mark.parametrize(
    ("page", "links"),
    [
        ("/settings/api-keys/", ["/api/docs/"]),
        ("/settings/tokens/", ["/api/docs/"]),
        ("/settings/agent-connection/", ["/api/docs/", "/settings/developers/"]),
    ],
)
def test_the_credential_pages_link_the_reference(people, acme_client, page, links):
    acme_client.force_login(people["member"])
    text = acme_client.get(page).content.decode()

    for link in links:
        assert f'href="{link}"' in text, link
