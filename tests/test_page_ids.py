"""Every page and API route that takes a numeric id, asked with ids no row can have (zero, and
more digits than a bigint holds), by a signed-in owner: "not found" or a refusal, never a server
error. The routes are collected from the URL resolver, so a new one is checked once it exists."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db

HUGE = "9" * 30


def numeric_routes(patterns=None, prefix: str = "") -> list[str]:  # type: ignore[no-untyped-def]
    found = []
    for entry in patterns if patterns is not None else get_resolver("config.urls_tenant").url_patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found += numeric_routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and "<int:" in route:
            found.append(route)
    return sorted(found)


ROUTES = numeric_routes()


def test_the_routes_are_found():
    assert any("api-keys/<int:key_id>" in route for route in ROUTES)
    assert len(ROUTES) >= 10


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("number", ["0", HUGE])
def test_an_id_no_row_has_is_not_found_never_a_server_error(acme_client, people, route, number):
    acme_client.force_login(people["owner"])
    path = "/" + re.sub(r"<int:\w+>", number, route).lstrip("^").rstrip("$")

    for method in (acme_client.get, acme_client.post):
        response = method(path)

        assert response.status_code in {400, 403, 404, 405}, (method.__name__, path, response.status_code)
