import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("host", "brand"),
    [("127.0.0.1", "Acme Workspace"), ("localhost", "Acme Workspace"), ("127.0.0.2", "Globex Hub")],
)
def test_it_routes_each_host_to_its_workspace(client, host, brand):
    response = client.get("/", HTTP_HOST=host)

    assert response.status_code == 200
    assert f"<h1>{brand}</h1>" in response.content.decode()
    assert connection.schema_name == {"Acme Workspace": "acme", "Globex Hub": "globex"}[brand]


def test_a_port_in_the_host_does_not_change_the_workspace(client):
    response = client.get("/", HTTP_HOST="127.0.0.2:8000")

    assert "Globex Hub" in response.content.decode()


def test_an_unknown_host_gets_a_plain_404_page(client, settings):
    settings.DEBUG = True  # even in development: no debug page, no stack trace

    response = client.get("/settings/", HTTP_HOST="nobody.example")

    assert response.status_code == 404
    body = response.content.decode()
    assert "There is no workspace at this address." in body
    assert "Traceback" not in body and "nobody.example" not in body


@pytest.mark.parametrize("host", ["127.0.0.1", "admin.localhost"])
def test_an_unknown_url_gets_the_projects_404_page_even_in_development(client, settings, host):
    settings.DEBUG = True  # as `make run` has it: debug pages for errors in code, not for unknown URLs

    response = client.get("/no/such/page/", HTTP_HOST=host)

    assert response.status_code == 404
    body = response.content.decode()
    assert "Using the URLconf" not in body and "settings/" not in body
    assert "There is nothing at this address." in body


def test_an_unknown_api_url_stays_json_in_development(acme_client, settings):
    settings.DEBUG = True

    response = acme_client.get("/api/no-such-thing")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


def test_a_missing_slash_still_redirects_in_development(acme_client, settings):
    settings.DEBUG = True

    response = acme_client.get("/settings")

    assert response.status_code == 301 and response["Location"].endswith("/settings/")


def test_health_checks_answer_on_any_host(client):
    assert client.get("/healthz", HTTP_HOST="10.1.2.3").json() == {"status": "ok"}
    ready = client.get("/readyz", HTTP_HOST="10.1.2.3")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok", "checks": {"database": "ok", "redis": "ok"}}


def test_readiness_reports_a_dead_redis(client, settings, monkeypatch):
    from apps.core import views
    from apps.core.shared_redis import SharedRedis

    # A client of the test's own, made from the changed URL; the module's is back afterwards.
    monkeypatch.setattr(views, "_redis_client", SharedRedis(timeout=1))
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1

    response = client.get("/readyz", HTTP_HOST="127.0.0.1")

    assert response.status_code == 503
    assert response.json()["checks"] == {"database": "ok", "redis": "unavailable"}


def test_the_public_host_serves_the_operators_admin(public_client):
    response = public_client.get("/admin/login/")

    assert response.status_code == 200
    assert connection.schema_name == "public"


def test_workspace_hosts_have_no_admin(acme_client):
    assert acme_client.get("/admin/login/").status_code == 404


@pytest.mark.django_db
def test_each_lookup_of_a_host_is_a_copy_of_its_own_equal_to_the_row(acme):
    from apps.tenancy import routing
    from apps.tenancy.models import Workspace

    host = acme.get_primary_domain().domain
    first = routing.workspace_for_host(host)
    first.domain_url = host  # as the middleware annotates it
    first._state.fields_cache["seen"] = True
    second = routing.workspace_for_host(host)

    assert second is not first and second._state is not first._state
    assert second._state.fields_cache == {} and not second._state.adding and second._state.db == "default"
    assert getattr(second, "domain_url", None) is None
    row = Workspace.objects.get(pk=acme.pk)
    assert {name: getattr(second, name) for name in ("pk", "schema_name", "name", "installed_areas")} == {
        name: getattr(row, name) for name in ("pk", "schema_name", "name", "installed_areas")
    }
