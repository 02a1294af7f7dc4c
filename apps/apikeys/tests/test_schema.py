"""The OpenAPI schema: served, readable, and true to the server. Schemathesis generates requests
for every operation in it and sends them to the live server (real HTTP on loopback): no answer
may be a 5xx, and every answer must match what the schema says."""

import pytest
import schemathesis
from django_tenants.utils import schema_context
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

pytestmark = pytest.mark.live

EXAMPLES_PER_OPERATION = 40


@pytest.fixture(scope="module")
def access_token(live_http, django_db_blocker) -> str:
    from apps.accounts.models import User
    from apps.accounts.services import access_token_create

    with django_db_blocker.unblock(), schema_context("acme"):
        _token, raw = access_token_create(
            user=User.objects.get(email="member@acme.example"), name="schemathesis"
        )
    return raw


@pytest.fixture(scope="module")
def api_schema(live_http, access_token):
    loaded = schemathesis.openapi.from_url(f"{live_http.url()}/api/schema/?format=json", timeout=30)
    loaded.config.update(base_url=live_http.url(), headers={"Authorization": f"Bearer {access_token}"})
    loaded.config.generation.update(max_examples=EXAMPLES_PER_OPERATION)
    return loaded


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


def test_no_generated_request_gets_a_server_error_or_an_undocumented_answer(api_schema):
    # Each operation in turn, in one test: Schemathesis' own pytest parametrisation of a schema
    # loaded from a fixture does not run under this pytest.
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 7

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(deadline=None, suppress_health_check=list(HealthCheck), max_examples=EXAMPLES_PER_OPERATION)
        def exercise(case) -> None:  # type: ignore[no-untyped-def]
            case.call_and_validate(checks=CHECKS)

        exercise()


def test_the_schema_describes_the_key_and_quick_setup_endpoints(live_http):
    document = live_http.client().get("/api/schema/", headers={"Accept": "application/json"}).json()

    assert document["openapi"].startswith("3.")
    assert {"/api/api-keys", "/api/api-keys/{key_id}", "/api/mcp/quick-setup"} <= set(document["paths"])
    created = document["paths"]["/api/api-keys"]["post"]["responses"]["201"]["content"]["application/json"]
    fields = document["components"]["schemas"][created["schema"]["$ref"].rsplit("/", 1)[1]]["properties"]
    assert {"key", "signing_secret", "usage", "budget_usd_cents", "budget_period"} <= set(fields)
    assert document["components"]["securitySchemes"]["accessToken"]["scheme"] == "bearer"


def test_the_docs_pages_are_served_with_their_assets_from_here(live_http):
    client = live_http.client()

    page = client.get("/api/docs/")
    trying = client.get("/api/docs/try/")

    assert page.status_code == 200 and "/api/schema/" in page.text
    assert trying.status_code == 200
    assert "cdn." not in page.text and "cdn." not in trying.text
    # Redoc's bundle is the sidecar's, served by apps.core.api.reference; Swagger UI's from static.
    assert "/api/docs/redoc.standalone.js" in page.text
    assert "/static/drf_spectacular_sidecar/" in trying.text
