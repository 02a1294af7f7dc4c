from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection
from django_tenants.utils import schema_context, schema_exists

from apps.accounts.models import Role, User
from apps.core import permissions
from apps.core.errors import ValidationFailed
from apps.tenancy.models import Domain, Workspace
from apps.tenancy.services import workspace_create, workspace_delete

pytestmark = pytest.mark.django_db


def create(**overrides):
    fields = {"name": "Initech", "domains": ["initech.test"], "owner_email": "Boss@Initech.test"}
    fields.update(overrides)
    return workspace_create(**fields)


def test_it_clones_the_template_schema_with_the_built_in_roles_and_the_owner():
    workspace = create(brand_name="Initech Portal", time_zone="Europe/Paris")

    assert workspace.schema_name == "initech"
    assert schema_exists("initech")
    assert workspace.brand_name == "Initech Portal"
    assert workspace.installed_areas == permissions.optional_area_keys()
    assert list(workspace.domains.values_list("domain", "is_primary")) == [("initech.test", True)]
    with schema_context("initech"):
        # The four roles of people, and the client portal's (which grants nothing).
        assert set(Role.objects.values_list("key", flat=True)) == {
            "owner",
            "admin",
            "member",
            "viewer",
            "portal",
        }
        owner = User.objects.get()
        assert (owner.email, owner.role.key) == ("boss@initech.test", "owner")
        assert not owner.has_usable_password()


def test_the_brand_defaults_to_the_name_and_schema_names_do_not_collide():
    first = create()
    second = create(domains=["initech2.test"], owner_email="b@initech.test")

    assert first.brand_name == "Initech"
    assert (first.schema_name, second.schema_name) == ("initech", "initech_2")


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"domains": ["not a host"]}, "domains"),
        ({"domains": ["127.0.0.1"]}, "domains"),  # Acme's
        ({"domains": []}, "domains"),
        ({"schema_name": "Bad-Name"}, "schema_name"),
        ({"schema_name": "public"}, "schema_name"),
        ({"schema_name": "acme"}, "schema_name"),
        ({"owner_email": "nobody"}, "owner_email"),
        ({"time_zone": "Mars/Olympus"}, "time_zone"),
        ({"installed_areas": ["no-such-area"]}, "installed_areas"),
        ({"name": "  "}, "name"),
    ],
)
def test_bad_input_is_refused_and_leaves_nothing_behind(overrides, field):
    before = (Workspace.objects.count(), Domain.objects.count())

    with pytest.raises(ValidationFailed) as caught:
        create(**overrides)

    assert field in caught.value.details
    assert (Workspace.objects.count(), Domain.objects.count()) == before
    assert not schema_exists("initech")


def test_a_failure_half_way_rolls_back_the_schema_and_the_rows(monkeypatch):
    from apps.accounts import services as account_services

    def explode(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(account_services, "user_create_owner", explode)

    with pytest.raises(RuntimeError):
        create()

    assert not Workspace.objects.filter(schema_name="initech").exists()
    assert not Domain.objects.filter(domain="initech.test").exists()
    assert not schema_exists("initech")


def test_the_command_creates_a_workspace_and_prints_the_owners_password(capsys):
    call_command(
        "create_workspace",
        "--name",
        "Umbrella",
        "--domain",
        "umbrella.test",
        "--domain",
        "www.umbrella.test",
        "--owner-email",
        "ceo@umbrella.test",
    )

    out = capsys.readouterr().out
    assert "Created workspace Umbrella (schema umbrella)." in out
    assert "Open https://umbrella.test/ once its DNS points at this service." in out
    password = out.strip().rsplit(" ", 1)[-1]
    with schema_context("umbrella"):
        assert User.objects.get(email="ceo@umbrella.test").check_password(password)
    assert set(Domain.objects.filter(tenant__schema_name="umbrella").values_list("domain", flat=True)) == {
        "umbrella.test",
        "www.umbrella.test",
    }


def test_without_a_domain_the_command_gives_a_name_this_machines_browser_opens(capsys, monkeypatch):
    monkeypatch.setenv("ATRIUM_PORT", "8123")
    call_command("create_workspace", "--name", "Wayne Enterprises", "--owner-email", "ceo@wayne.test")

    out = capsys.readouterr().out
    assert "Open http://wayne-enterprises.localhost:8123/ (on this machine)." in out
    assert list(
        Domain.objects.filter(tenant__schema_name="wayne_enterprises").values_list("domain", flat=True)
    ) == ["wayne-enterprises.localhost"]


def workspace_media(schema_name: str) -> Path:
    return Path(settings.MEDIA_ROOT) / "workspaces" / schema_name


def test_deleting_a_workspace_drops_its_schema_and_files():
    workspace = create()
    connection.set_tenant(workspace)
    default_storage.save("notes/a.txt", ContentFile(b"hello"))
    connection.set_schema_to_public()
    assert (workspace_media("initech") / "notes" / "a.txt").exists()

    workspace_delete(workspace=Workspace.objects.get(schema_name="initech"))

    assert not schema_exists("initech")
    assert not workspace_media("initech").exists()
    assert not Domain.objects.filter(domain="initech.test").exists()


def test_each_workspace_stores_files_under_its_own_prefix(acme):
    acme_name = default_storage.save("report.txt", ContentFile(b"acme"))
    connection.set_tenant(Workspace.objects.get(schema_name="globex"))
    globex_name = default_storage.save("report.txt", ContentFile(b"globex"))
    try:
        assert (workspace_media("acme") / acme_name).read_bytes() == b"acme"
        assert (workspace_media("globex") / globex_name).read_bytes() == b"globex"
        assert default_storage.open(globex_name).read() == b"globex"
    finally:
        default_storage.delete(globex_name)
        connection.set_tenant(acme)
        default_storage.delete(acme_name)


def test_the_database_server_holds_the_locks_of_several_workspace_drops_at_once():
    """Dropping (or copying) a workspace's schema locks each of its objects in one transaction.
    The lock table (max_locks_per_transaction x max_connections) holds six such transactions at
    once, with room for the rest of the load (bootstrap.MAX_LOCKS_PER_TRANSACTION; docs/deploy.md,
    "Sizing"): with PostgreSQL's default of 64, two ran it out. A catalogue that grows past it
    fails here first."""
    from django.db import transaction
    from django_tenants.utils import get_tenant_base_schema

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('max_locks_per_transaction')::int "
            "* current_setting('max_connections')::int"
        )
        capacity = cursor.fetchone()[0]
        with transaction.atomic():
            cursor.execute(f"DROP SCHEMA {connection.ops.quote_name(get_tenant_base_schema())} CASCADE")
            cursor.execute("SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid()")
            locks = cursor.fetchone()[0]
            transaction.set_rollback(True)
    assert locks > 1_000  # one per object of the ~1,800 relations, and more
    assert capacity >= 6 * locks, f"a workspace's drop takes {locks} locks; the lock table holds {capacity}"
