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
