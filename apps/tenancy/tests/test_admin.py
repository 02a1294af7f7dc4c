import pytest
from django.http import HttpRequest
from django_tenants.utils import schema_context, schema_exists

from apps.accounts.models import User
from apps.tenancy.models import Workspace

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator_client(public_client):
    operator = User.objects.get(email="operator@atrium.example")
    public_client.force_login(operator)
    return public_client


def test_operators_create_a_workspace_from_the_admin(operator_client):
    response = operator_client.post(
        "/admin/tenancy/workspace/add/",
        {
            "name": "Hooli",
            "schema_name": "",
            "brand_name": "Hooli XYZ",
            "domain": "hooli.test",
            "owner_email": "gavin@hooli.test",
            "time_zone": "America/Los_Angeles",
            "installed_areas": [],
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    workspace = Workspace.objects.get(schema_name="hooli")
    assert (workspace.brand_name, workspace.time_zone) == ("Hooli XYZ", "America/Los_Angeles")
    with schema_context("hooli"):
        assert User.objects.get().role.key == "owner"


def test_the_admin_shows_a_refusal_on_the_form(operator_client):
    response = operator_client.post(
        "/admin/tenancy/workspace/add/",
        {
            "name": "Hooli",
            "domain": "127.0.0.2",
            "owner_email": "gavin@hooli.test",
            "time_zone": "UTC",
        },
    )

    assert response.status_code == 200
    assert "Already in use: 127.0.0.2" in response.content.decode()
    assert not Workspace.objects.filter(name="Hooli").exists()


def test_the_admin_lists_workspaces_but_not_the_public_schema(operator_client):
    body = operator_client.get("/admin/tenancy/workspace/").content.decode()

    assert "Acme Workspace" in body and "Globex Hub" in body
    assert ">public<" not in body


def test_deleting_from_the_admin_drops_the_schema(operator_client):
    operator_client.post(
        "/admin/tenancy/workspace/add/",
        {"name": "Doomed", "domain": "doomed.test", "owner_email": "x@doomed.test", "time_zone": "UTC"},
    )
    workspace = Workspace.objects.get(schema_name="doomed")

    response = operator_client.post(f"/admin/tenancy/workspace/{workspace.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not schema_exists("doomed")


def test_workspace_people_cannot_use_the_operators_admin(public_client):
    # The throttle's backend (django-axes) sees every sign-in with the request it came with.
    signed_in = public_client.login(
        request=HttpRequest(), username="owner@acme.example", password="atrium-demo"
    )

    assert signed_in is False
