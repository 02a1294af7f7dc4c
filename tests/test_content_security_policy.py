"""Every page carries a Content-Security-Policy that allows the page's own assets only
(config/settings/security.py), and the templates keep to it: no inline script, no style
attribute, no event-handler attribute. tests/test_browser_pages.py shows the pages in Chromium
breaking none of its rules."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from apps.accounts.models import User
from apps.accounts.services import role_create
from apps.documents.tests.factories import DocumentFactory
from apps.tasks.tests.factories import TaskFactory

pytestmark = pytest.mark.django_db

ROOT = Path(settings.BASE_DIR)
POLICY = {
    "default-src": ["'self'"],
    "base-uri": ["'self'"],
    "object-src": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}


def directives(header: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in header.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def policy_of(response) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    assert "Content-Security-Policy" in response, (response.status_code, response.get("Content-Type"))
    return directives(response["Content-Security-Policy"])


def settings_routes() -> list[tuple[str, list[str]]]:
    """Every URL pattern of a workspace host under /settings/, and the names of its parameters."""
    found = []

    def walk(patterns: list, prefix: str) -> None:  # type: ignore[type-arg]
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("settings/"):
                found.append((route, list(pattern.pattern.converters)))

    walk(get_resolver(settings.ROOT_URLCONF).url_patterns, "")
    return found


def test_the_policy_allows_the_pages_own_assets_only(acme_client):
    policy = policy_of(acme_client.get("/accounts/sign-in/"))

    assert policy == POLICY
    # No directive lets an inline script or style attribute through, nor another origin.
    assert not any("unsafe" in value or "*" in value for values in policy.values() for value in values)


def test_every_page_of_the_settings_area_carries_the_policy(acme_client, people):
    acme_client.force_login(people["owner"])
    routes = settings_routes()
    assert len(routes) > 20  # the walk found the settings area

    for route, parameters in routes:
        # A page of a record that does not exist answers the 404 page; a POST-only door 405.
        path = "/" + re.sub(r"<[^>]+>", "987654321", route)
        response = acme_client.get(path)
        # A door an outside service sends people back to needs the query it adds (the OAuth
        # redirection endpoint: 400 without its `state`), and still carries the policy.
        expected = (200, 404, 405) if parameters else (200, 405)
        expected += (400,) if path in NEEDS_QUERY else ()
        assert response.status_code in expected, path
        assert policy_of(response) == POLICY, path


NEEDS_QUERY = {"/settings/integrations/callback/"}


def test_the_settings_pages_of_a_record_carry_the_policy(acme_client, people):
    owner = people["owner"]
    acme_client.force_login(owner)
    pages = [
        f"/settings/roles/{role_create(actor=owner, name='Auditors', permissions=[]).pk}/",
        f"/settings/tasks/{TaskFactory(actor=owner).pk}/",
        f"/settings/documents/{DocumentFactory(actor=owner).pk}/",
    ]

    for path in pages:
        response = acme_client.get(path)
        assert response.status_code == 200, path
        assert policy_of(response) == POLICY, path


def test_pages_outside_the_settings_area_carry_it_too(acme_client, public_client):
    operator = User.objects.get(email="operator@atrium.example")
    admin = Client(HTTP_HOST=settings.ATRIUM_PUBLIC_DOMAINS[0])
    admin.force_login(operator)
    answers = {
        "sign-in page": acme_client.get("/accounts/sign-in/"),
        "lockout page": [
            acme_client.post("/accounts/sign-in/", {"username": "csp@acme.example", "password": "x"})
            for _ in range(settings.AXES_FAILURE_LIMIT)
        ][-1],
        "404 page": acme_client.get("/no-such-page/"),
        "a host no workspace owns": Client(HTTP_HOST="nowhere.example").get("/"),
        "admin sign-in": public_client.get("/admin/login/"),
        "admin": admin.get("/admin/"),
        "admin's data-rights requests": admin.get("/admin/datarights/datarequest/"),
    }

    for what, response in answers.items():
        assert response["Content-Type"].startswith("text/html"), what
        assert policy_of(response) == POLICY, what
    assert answers["lockout page"].status_code == 429


def test_the_api_docs_pages_keep_the_policy_with_only_what_their_viewers_need(acme_client):
    # Redoc and Swagger UI style their elements inline, Redoc searches in a blob: worker, both draw
    # data: images (security.API_REFERENCE_CSP); still no inline script and nothing from elsewhere.
    for path, allowed in (("/api/docs/", "redoc"), ("/api/docs/try/", "swagger")):
        response = acme_client.get(path)
        assert response.status_code == 200
        policy = policy_of(response)
        assert policy["default-src"] == POLICY["default-src"], path
        assert "'unsafe-inline'" not in policy.get("script-src", policy["default-src"]), path
        assert "'unsafe-inline'" in policy["style-src"], path
        assert ("blob:" in policy.get("worker-src", [])) == (allowed == "redoc"), path
        assert response["X-Frame-Options"] == "DENY"
    assert policy_of(acme_client.get("/api/schema/")) == POLICY


# --- the templates keep to the policy ------------------------------------------------------------

TEMPLATES = sorted([*ROOT.glob("templates/**/*.html"), *ROOT.glob("apps/*/templates/**/*.html")])
INLINE = {
    "an inline script": re.compile(r"<script\b(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE),
    "a style element": re.compile(r"<style\b", re.IGNORECASE),
    "a style attribute": re.compile(r"<[a-z][^>]*\sstyle\s*=", re.IGNORECASE),
    "an event-handler attribute": re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.IGNORECASE),
    "a javascript: URL": re.compile(r"javascript:", re.IGNORECASE),
}


def test_the_scan_finds_what_the_policy_refuses():
    samples = {
        "an inline script": '<script>alert(1)</script><script src="/static/a.js"></script>',
        "a style element": "<style>p { color: red }</style>",
        "a style attribute": '<div class="x" style="color:red">',
        "an event-handler attribute": '<button type="button" onclick="go()">',
        "a javascript: URL": '<a href="javascript:go()">',
    }
    clean = '<script src="/static/js/atrium.js" defer></script><p class="onboarding">on=</p>'

    for what, pattern in INLINE.items():
        assert pattern.search(samples[what]), what
        assert not pattern.search(clean), what


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_template_has_what_the_policy_would_refuse(template):
    text = template.read_text()

    found = [what for what, pattern in INLINE.items() if pattern.search(text)]

    assert not found, f"{template.relative_to(ROOT)} has {', '.join(found)}: move it to static/"
