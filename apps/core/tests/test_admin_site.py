"""The operators' admin (apps.core.admin.AtriumAdminSite): the host's brand instead of Django's,
and only the sections that work in the schema it serves."""

import re

import pytest
from django.conf import settings
from django.contrib import admin
from django.test import RequestFactory
from django_tenants.utils import get_public_schema_name

from apps.accounts.models import User
from apps.core.admin import AtriumAdminSite, public_admin_site
from apps.tenancy.models import Workspace

pytestmark = pytest.mark.django_db

# Apps whose tables are in workspace schemas only: their admin pages could only fail on the public site.
WORKSPACE_ONLY = ("calendars", "departments", "documents", "files", "groupaccounts")


@pytest.fixture
def operator_client(public_client):
    public_client.force_login(User.objects.get(email="operator@atrium.example"))
    return public_client


def links_of(body: str) -> list[str]:
    return sorted(set(re.findall(r'href="(/admin/[^"#?]*)"', body)))


def test_the_public_admin_wears_the_service_brand_not_djangos(operator_client, public_client):
    index = operator_client.get("/admin/").content.decode()

    assert '<div id="site-name"><a href="/admin/">Atrium</a></div>' in index
    assert "<title>Atrium administration | Atrium admin</title>" in index
    assert "<h1>Atrium administration</h1>" in index
    assert "Django administration" not in index and "Django site admin" not in index
    # The public site has nothing to view but this admin.
    assert "View site" not in index
    changelist = operator_client.get("/admin/tenancy/workspace/").content.decode()
    assert "| Atrium admin</title>" in changelist and "View site" not in changelist


def test_the_sign_in_page_wears_the_brand_too(client):
    page = client.get("/admin/login/", HTTP_HOST=settings.ATRIUM_PUBLIC_DOMAINS[0]).content.decode()

    assert '<div id="site-name"><a href="/admin/">Atrium</a></div>' in page
    assert "Django" not in page.split("<body", 1)[1].split("</header>", 1)[0]


def test_the_public_admin_shows_only_sections_that_work(operator_client):
    index = operator_client.get("/admin/").content.decode()

    assert "Not available" not in index and "public-disabled" not in index
    for app_label in ("tenancy", "datarights", "accounts", "auth", "axes"):
        assert f'class="app-{app_label} module' in index, app_label
    for app_label in WORKSPACE_ONLY:
        assert f"app-{app_label}" not in index and f"/admin/{app_label}/" not in index, app_label
    links = links_of(index)
    assert "/admin/tenancy/workspace/" in links and "/admin/datarights/datarequest/" in links
    # Every section, list and form the index links to answers.
    broken = {link: status for link in links if (status := operator_client.get(link).status_code) != 200}
    assert broken == {}


def test_workspace_models_are_not_reachable_on_the_public_site(operator_client):
    for app_label, model in [("calendars", "calendar"), ("documents", "document"), ("files", "folder")]:
        assert operator_client.get(f"/admin/{app_label}/{model}/").status_code == 404
        assert operator_client.get(f"/admin/{app_label}/").status_code == 404


def test_the_site_holds_the_models_of_its_schema_only():
    public = public_admin_site()
    workspace = AtriumAdminSite(schema_apps=settings.TENANT_APPS)
    workspace.register_from(admin.site)
    public_labels = {model._meta.label for model in public._registry}
    workspace_labels = {model._meta.label for model in workspace._registry}

    assert {"tenancy.Workspace", "datarights.DataRequest", "accounts.User"} <= public_labels
    assert not {label for label in public_labels if label.split(".")[0] in WORKSPACE_ONLY}
    assert {"calendars.Calendar", "documents.Document", "accounts.User"} <= workspace_labels
    assert not {"tenancy.Workspace", "datarights.DataRequest"} & workspace_labels
    # Each page is built by a ModelAdmin of this site, so it wears this site's brand and links.
    assert all(model_admin.admin_site is public for model_admin in public._registry.values())


def test_on_a_workspace_host_the_admin_wears_the_workspace_brand():
    site = public_admin_site()
    request = RequestFactory().get("/admin/", HTTP_HOST="127.0.0.1")
    request.user = User(email="someone@acme.example", is_active=False)  # no permissions to look up
    request.tenant = Workspace.objects.get(schema_name="acme")

    context = site.each_context(request)

    assert (context["site_header"], context["site_title"]) == ("Acme Workspace", "Acme Workspace admin")
    assert context["site_url"] == "/"
    request.tenant = Workspace.objects.get(schema_name=get_public_schema_name())
    context = site.each_context(request)
    assert (context["site_header"], context["site_url"]) == ("Atrium", None)
