"""The client portal's pages, the scenario of issue 43: a portal user signs in on the workspace
host with their own password (under the same ceiling on guesses as everyone), sees the one
document shared with them and nothing else: every other URL family of the workspace host is
"not found" to them, naming nothing; no token of theirs opens the API or MCP."""

import re
import secrets
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.urls.resolvers import RoutePattern

from apps.accounts import errors as account_errors
from apps.accounts import throttle
from apps.accounts.authentication import authenticate_access_token
from apps.accounts.services import access_token_create
from apps.catalogue.testing import confirmed, ok
from apps.contacts.tests.factories import ContactFactory
from apps.documents.tests.factories import DocumentFactory
from apps.files.tests.factories import FileFactory
from apps.platform.models import PortalUser

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
PASSWORD = "quiet-harbour-lantern-42"
ALLOWED = tuple(settings.ATRIUM_PORTAL_PATHS)


def portal_person(owner: Any) -> PortalUser:
    """An invited contact who has chosen their password (as the invitation's page does)."""
    tag = secrets.token_hex(4)
    contact = ContactFactory(actor=owner, first_name=f"Client {tag}", email=f"client-{tag}@example.com")
    answer = ok(owner, "invitePortalUser", {"contactId": contact.pk}, **CONFIRM)
    row = PortalUser.objects.select_related("user").get(pk=answer["portalUser"]["id"])
    row.user.password = make_password(PASSWORD)
    row.user.save(update_fields=["password"])
    return row


def signed_in(row: PortalUser) -> Client:
    client = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR="2001:db8::" + secrets.token_hex(2))
    answer = client.post("/accounts/sign-in/", {"username": row.user.email, "password": PASSWORD})
    assert answer.status_code == 302
    return client


def concrete(route: str) -> str:
    """A path of the route's family: its converters given plausible values."""
    route = re.sub(r"<int:[^>]+>", "1", route)
    route = re.sub(r"<uuid:[^>]+>", "00000000-0000-0000-0000-000000000001", route)
    return re.sub(r"<(?:\w+:)?[^>]+>", "x", route)


def literal(regex: str) -> str:
    """The literal start of a regular expression's route (`^api/` is `api/`)."""
    regex = regex.lstrip("^")
    return re.split(r"[\\\[\(\.\*\+\?\$\|]", regex, maxsplit=1)[0]


def families(patterns: list[Any] | None = None, prefix: str = "") -> set[str]:
    """Every URL of the workspace host, one per route, with values for its parameters."""
    found: set[str] = set()
    for entry in patterns if patterns is not None else get_resolver().url_patterns:
        pattern = entry.pattern
        part = concrete(str(pattern)) if isinstance(pattern, RoutePattern) else literal(str(pattern))
        if isinstance(entry, URLResolver):
            found |= families(entry.url_patterns, prefix + part)
        elif isinstance(entry, URLPattern):
            found.add("/" + prefix + part)
    return found


def test_a_portal_user_sees_the_one_document_shared_with_them_and_nothing_else(people):
    owner = people["owner"]
    row = portal_person(owner)
    shared = DocumentFactory(actor=owner, title="Statement of work for the client", content="Milestones")
    hidden = DocumentFactory(actor=owner, title="Internal margin notes", content="Do not show")
    workspace_file = FileFactory(actor=owner, name="pricing-internal.txt", text="internal")
    ok(owner, "shareDocument", {"documentId": shared.pk, "personEmail": row.user.email, "access": "view"})
    client = signed_in(row)

    home = client.get("/portal/")
    body = home.content.decode()
    assert home.status_code == 200
    assert "Statement of work for the client" in body and f"/portal/documents/{shared.pk}/" in body
    assert "Internal margin notes" not in body and "pricing-internal" not in body
    opened = client.get(f"/portal/documents/{shared.pk}/")
    assert opened.status_code == 200 and "Milestones" in opened.content.decode()
    for path in (f"/portal/documents/{hidden.pk}/", f"/portal/files/{workspace_file.pk}/"):
        refused = client.get(path)
        assert refused.status_code == 404 and "Internal" not in refused.content.decode()

    # Shared with them, a file opens too; unshared, it is gone from the portal at once.
    ok(owner, "shareFile", {"fileId": workspace_file.pk, "personEmail": row.user.email, "access": "view"})
    download = client.get(f"/portal/files/{workspace_file.pk}/")
    assert download.status_code == 200 and b"".join(download) == b"internal"
    assert "attachment" in download["Content-Disposition"]
    ok(owner, "shareDocument", {"documentId": shared.pk, "personEmail": row.user.email, "access": "none"})
    assert client.get(f"/portal/documents/{shared.pk}/").status_code == 404


def test_every_other_url_family_is_not_found_to_a_portal_user(people):
    owner = people["owner"]
    row = portal_person(owner)
    secret = DocumentFactory(actor=owner, title="Board minutes secret", content="x")
    client = signed_in(row)
    # The MCP endpoint's route is a regular expression with its profile in it: named here.
    paths = sorted(families() | {"/api/mcp"})
    assert len(paths) > 100 and {"/settings/tokens/", "/oauth/authorize", "/api/me"} <= set(paths)

    checked = 0
    for path in paths:
        if path.startswith(ALLOWED):
            continue
        for method in ("get", "post"):
            answer = getattr(client, method)(path)
            body = answer.content.decode(errors="replace")
            if path in ("/", "/settings/"):
                assert answer.status_code == 302 and answer["Location"] == "/portal/", path
                continue
            assert answer.status_code in (403, 404), f"{method} {path}: {answer.status_code}"
            assert "owner@acme.example" not in body and secret.title not in body, path
            checked += 1
    assert checked > 100
    # Nor does a staff person's portal page exist for them, nor the portal for someone signed out.
    staff = Client(HTTP_HOST="127.0.0.1")
    staff.force_login(owner)
    assert staff.get("/portal/").status_code == 404
    anonymous = Client(HTTP_HOST="127.0.0.1").get("/portal/")
    assert anonymous.status_code == 302 and "/accounts/sign-in/" in anonymous["Location"]


def test_no_token_of_a_portal_user_opens_the_api_or_mcp(people):
    row = portal_person(people["owner"])
    _token, raw = access_token_create(user=row.user, name="should not work")

    with pytest.raises(account_errors.InvalidAccessToken):
        authenticate_access_token(raw)
    client = Client(HTTP_HOST="127.0.0.1")
    for path in ("/api/mcp", "/api/me"):
        answer = client.post(path, {}, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}")
        assert answer.status_code in (401, 404), path


def test_a_portal_user_signs_in_under_the_same_ceiling_on_guesses(people):
    row = portal_person(people["owner"])
    client = Client(HTTP_HOST="127.0.0.1")
    try:
        answers = [
            client.post("/accounts/sign-in/", {"username": row.user.email, "password": f"guess-{n}"})
            for n in range(settings.AXES_FAILURE_LIMIT)
        ]
        assert answers[0].status_code == 200 and answers[-1].status_code == 429
        # Even the right password is refused while it lasts.
        right = client.post("/accounts/sign-in/", {"username": row.user.email, "password": PASSWORD})
        assert right.status_code == 429
    finally:
        throttle.forget_failures(row.user.email)
