"""The data team's admin on the public site: requests, status and notes, and the personal-data
page (export, erasure) reached from a request or on its own."""

import json

import pytest
from django.contrib.auth.models import Permission
from django_tenants.utils import schema_context

from apps.accounts.models import Role, User
from apps.datarights import services
from apps.datarights.models import DataRequest, PersonalDataOperation
from apps.tenancy.models import Workspace

from .conftest import valid_body

pytestmark = pytest.mark.django_db

EMAIL = "ada.quillfeather@example.org"
CHANGELIST = "/admin/datarights/datarequest/"
PAGE = "/admin/datarights/datarequest/personal-data/"


# The change form carries the (read-only) inline of exports and erasures.
INLINE = {
    "operations-TOTAL_FORMS": "0",
    "operations-INITIAL_FORMS": "0",
    "operations-MIN_NUM_FORMS": "0",
    "operations-MAX_NUM_FORMS": "1000",
}


@pytest.fixture
def operator_client(public_client):
    public_client.force_login(User.objects.get(email="operator@atrium.example"))
    return public_client


@pytest.fixture
def acme_workspace(db):
    return Workspace.objects.get(schema_name="acme")


@pytest.fixture
def received(acme_workspace):
    data = {**valid_body(), "received_at": "2025-03-14T09:26:53+00:00"}
    request, _created = services.data_request_receive(data=data, host="127.0.0.1", workspace=acme_workspace)
    return request


@pytest.fixture
def ada(db):
    """Ada is also a member of Acme."""
    with schema_context("acme"):
        return User.objects.create_user(
            email=EMAIL, full_name="Ada Quillfeather", role=Role.objects.get(key="member")
        )


def test_the_list_shows_each_request_with_its_status_and_receiving_host(operator_client, received):
    body = operator_client.get(CHANGELIST).content.decode()

    assert received.reference in body
    assert "127.0.0.1" in body
    assert "Received" in body or "received" in body
    filtered = operator_client.get(CHANGELIST, {"status__exact": "done"}).content.decode()
    assert received.reference not in filtered


def test_the_data_team_finds_a_request_by_its_reference_not_by_an_address(operator_client, received):
    assert received.reference in operator_client.get(CHANGELIST, {"q": received.reference}).content.decode()
    # An address in a query string would land in access logs: the search does not take one.
    assert received.reference not in operator_client.get(CHANGELIST, {"q": EMAIL}).content.decode()


def test_the_data_team_sets_status_and_notes_but_not_what_was_sent(operator_client, received):
    url = f"{CHANGELIST}{received.pk}/change/"
    page = operator_client.get(url).content.decode()
    assert "Ada Quillfeather" in page and "Please send me a copy" in page

    response = operator_client.post(
        url,
        {"status": "done", "notes": "Export sent on 2025-03-20.", "email": "changed@example.org", **INLINE},
    )

    assert response.status_code == 302, response.content.decode()[:3000]
    received.refresh_from_db()
    assert (received.status, received.notes) == ("done", "Export sent on 2025-03-20.")
    assert received.closed_at is not None
    assert received.email == EMAIL


def test_reopening_a_request_clears_its_closing_date(operator_client, received):
    url = f"{CHANGELIST}{received.pk}/change/"
    assert operator_client.post(url, {"status": "rejected", "notes": "", **INLINE}).status_code == 302
    received.refresh_from_db()
    assert received.closed_at is not None
    assert operator_client.post(url, {"status": "in_progress", "notes": "", **INLINE}).status_code == 302

    received.refresh_from_db()
    assert (received.status, received.closed_at) == ("in_progress", None)


def test_requests_are_neither_added_nor_deleted_in_the_admin(operator_client, received):
    assert operator_client.get(f"{CHANGELIST}add/").status_code == 403
    assert operator_client.post(f"{CHANGELIST}{received.pk}/delete/", {"post": "yes"}).status_code == 403
    assert DataRequest.objects.filter(pk=received.pk).exists()


def test_the_action_on_a_request_opens_the_personal_data_page_for_its_requester(operator_client, received):
    response = operator_client.post(
        CHANGELIST, {"action": "handle_personal_data", "_selected_action": [received.pk]}
    )

    assert response.status_code == 302
    assert response["Location"] == f"{PAGE}?request={received.pk}"
    page = operator_client.get(response["Location"]).content.decode()
    assert f'value="{EMAIL}"' in page
    assert f'<option value="{received.workspace_id}" selected>' in page


def test_the_personal_data_page_exports_everything_as_a_download(operator_client, received, ada):
    response = operator_client.post(
        PAGE,
        {"workspace": received.workspace_id, "email": EMAIL, "action": "export", "data_request": received.pk},
    )

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="personal-data-acme-')
    document = json.loads(b"".join(response.streaming_content))
    assert document["records"]["accounts.user"][0]["email"] == EMAIL
    assert document["records"]["datarights.datarequest"][0]["reference"] == received.reference
    operation = PersonalDataOperation.objects.get()
    assert (operation.kind, operation.data_request, operation.performed_by) == (
        "export",
        received,
        f"admin:{User.objects.get(email='operator@atrium.example').pk}",
    )


def test_erasure_needs_the_address_typed_again(operator_client, received, ada):
    response = operator_client.post(
        PAGE, {"workspace": received.workspace_id, "email": EMAIL, "action": "erase", "confirm_email": "ada@"}
    )

    assert response.status_code == 200
    assert "Type the same e-mail address to confirm the erasure." in response.content.decode()
    with schema_context("acme"):
        assert User.objects.filter(email=EMAIL).exists()
    assert not PersonalDataOperation.objects.exists()


def test_the_personal_data_page_erases_the_person_and_returns_to_the_request(operator_client, received, ada):
    response = operator_client.post(
        PAGE,
        {
            "workspace": received.workspace_id,
            "email": EMAIL,
            "action": "erase",
            "confirm_email": EMAIL.upper(),
            "data_request": received.pk,
        },
    )

    assert response.status_code == 302
    assert response["Location"] == f"{CHANGELIST}{received.pk}/change/"
    with schema_context("acme"):
        assert not User.objects.filter(email=EMAIL).exists()
    received.refresh_from_db()
    assert received.email == "" and received.erased_at is not None
    page = operator_client.get(response["Location"]).content.decode()
    assert "Erased 2 records in workspace Acme" in page
    assert PersonalDataOperation.objects.get().data_request == received


def test_a_refused_erasure_is_shown_on_the_page(operator_client, acme_workspace):
    response = operator_client.post(
        PAGE,
        {
            "workspace": acme_workspace.pk,
            "email": "owner@acme.example",
            "action": "erase",
            "confirm_email": "owner@acme.example",
        },
    )

    assert response.status_code == 200
    assert "last owner" in response.content.decode()


def test_a_malformed_request_id_only_leaves_the_form_empty(operator_client):
    response = operator_client.get(PAGE, {"request": "DR-0000-0000"})

    assert response.status_code == 200
    assert 'name="email"' in response.content.decode()


def test_operators_without_the_permissions_cannot_reach_the_page(public_client, acme_workspace):
    staff = User.objects.create_user(email="helper@atrium.example", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_datarequest"))
    public_client.force_login(staff)

    assert public_client.get(CHANGELIST).status_code == 200
    assert public_client.get(PAGE).status_code == 403

    staff.user_permissions.add(Permission.objects.get(codename="export_personal_data"))
    staff = User.objects.get(pk=staff.pk)  # fresh permission cache
    public_client.force_login(staff)
    assert public_client.get(PAGE).status_code == 200
    erase = public_client.post(
        PAGE, {"workspace": acme_workspace.pk, "email": EMAIL, "action": "erase", "confirm_email": EMAIL}
    )
    assert erase.status_code == 403
