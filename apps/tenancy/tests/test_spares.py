"""The pool of spare workspace schemas: a workspace created while a spare is ready gets it renamed,
and it is then exactly a copy of the template; a spare of an older template is never claimed; a
failed creation gives its spare back."""

import json
from datetime import datetime, timedelta

import pytest
import redis
from django.contrib.auth.hashers import check_password
from django.db import connections
from django.utils import timezone
from django_tenants.utils import get_tenant_base_schema, schema_context, schema_exists

from apps.accounts.models import User
from apps.tenancy import spares
from apps.tenancy.models import SpareSchema, Workspace
from apps.tenancy.services import workspace_create
from apps.tenancy.tests.test_cloning import CATALOGUE, catalogue

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool(settings):
    settings.ATRIUM_SPARE_SCHEMAS = 2
    settings.ATRIUM_SPARE_FILL_QUIET_SECONDS = 0  # topped up at once, as between bursts
    assert spares.fill() == 2
    return list(SpareSchema.objects.values_list("name", flat=True))


def test_a_new_workspace_takes_a_spare_and_is_the_template_again(pool):
    workspace = workspace_create(
        name="Spare",
        domains=["spare.test"],
        owner_email="owner@spare.test",
        owner_password="a-long-password-1",
    )

    assert not schema_exists(pool[0]) and schema_exists(pool[1])
    assert list(SpareSchema.objects.values_list("name", flat=True)) == pool[1:]
    made, expected = catalogue(workspace.schema_name), catalogue(get_tenant_base_schema())
    for part in CATALOGUE:
        assert made[part] == expected[part], part
    with schema_context(workspace.schema_name):
        owner = User.objects.get()
        assert owner.email == "owner@spare.test" and owner.role.key == "owner"
        assert check_password("a-long-password-1", owner.password)


def test_filling_again_tops_the_pool_up_and_no_more(pool, settings):
    workspace_create(name="One", domains=["one.test"], owner_email="owner@one.test")

    assert spares.fill() == 1
    assert spares.fill() == 0
    assert SpareSchema.objects.count() == 2


def test_while_workspaces_are_created_the_pool_is_topped_up_only_when_low(pool, settings):
    """Copies would slow a burst of creations down: they wait for a quiet moment, unless fewer
    than a quarter of the pool, or two, are ready (here two of three)."""
    settings.ATRIUM_SPARE_SCHEMAS = 3
    assert spares.fill() == 1
    settings.ATRIUM_SPARE_FILL_QUIET_SECONDS = 60
    workspace_create(name="One", domains=["one.test"], owner_email="owner@one.test")

    assert spares.fill() == 0
    assert SpareSchema.objects.count() == 2

    workspace_create(name="Two", domains=["two.test"], owner_email="owner@two.test")

    assert spares.fill() == 1
    assert SpareSchema.objects.count() == 2

    Workspace.objects.update(created_at=timezone.now() - timedelta(seconds=61))  # a quiet minute

    assert spares.fill() == 1
    assert SpareSchema.objects.count() == 3


def test_every_creation_on_the_primary_asks_for_a_fill_once_committed(
    settings, django_capture_on_commit_callbacks
):
    """One that copied the template (no spare ready) too: a fill waiting for a quiet moment is
    asked for by the last creation, whichever it was."""
    settings.ATRIUM_SPARE_SCHEMAS = 2
    with django_capture_on_commit_callbacks() as callbacks:
        workspace_create(name="Copied", domains=["copied.test"], owner_email="owner@copied.test")

    assert spares.request_fill in callbacks
    assert not SpareSchema.objects.exists()


def test_a_creation_asks_for_a_fill_now_and_another_after_the_quiet_time(settings):
    settings.ATRIUM_SPARE_FILL_QUIET_SECONDS = 30
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    before = set(broker.lrange("celery", 0, -1))

    spares.request_fill()

    sent = [message for message in broker.lrange("celery", 0, -1) if message not in before]
    for message in sent:  # only this test's: the queue may hold others'
        broker.lrem("celery", 1, message)
    queued = [json.loads(message)["headers"] for message in sent]
    assert [headers["task"] for headers in queued] == ["apps.tenancy.tasks.fill_spare_schemas"] * 2
    etas = sorted(headers["eta"] or "" for headers in queued)
    assert etas[0] == ""  # now
    later = datetime.fromisoformat(etas[1]) - timezone.now()
    assert timedelta(seconds=29) < later <= timedelta(seconds=31)


def test_a_spare_of_an_older_template_is_never_claimed_and_the_next_fill_drops_it(pool):
    SpareSchema.objects.filter(name=pool[0]).update(fingerprint="older")
    SpareSchema.objects.filter(name=pool[1]).update(fingerprint="older")

    workspace = workspace_create(name="Fresh", domains=["fresh.test"], owner_email="owner@fresh.test")

    assert schema_exists(workspace.schema_name)
    assert schema_exists(pool[0]) and schema_exists(pool[1])  # copied anew, not claimed
    assert spares.fill() == 2
    assert not schema_exists(pool[0]) and not schema_exists(pool[1])
    assert SpareSchema.objects.exclude(fingerprint="older").count() == 2


def test_a_failed_creation_gives_its_spare_back(pool, monkeypatch):
    from apps.accounts import services as account_services

    def explode(**kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(account_services, "user_create_owner", explode)

    with pytest.raises(RuntimeError):
        workspace_create(name="Broken", domains=["broken.test"], owner_email="owner@broken.test")

    assert not schema_exists("broken")
    assert all(schema_exists(name) for name in pool)
    assert list(SpareSchema.objects.values_list("name", flat=True)) == pool


def test_another_filler_at_work_is_left_to_it(settings):
    settings.ATRIUM_SPARE_SCHEMAS = 1
    other = connections.create_connection("default")  # another worker's connection
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [spares.FILL_LOCK])

        assert spares.fill() == 0
        assert not SpareSchema.objects.exists()
    finally:
        other.close()  # the session lock goes with its session


def test_without_a_pool_nothing_is_made_or_claimed(settings):
    settings.ATRIUM_SPARE_SCHEMAS = 0

    assert spares.fill() == 0
    assert spares.claim("nobody") is False
    assert not SpareSchema.objects.exists()


def test_a_copy_waits_while_the_template_is_migrated():
    """The runner migrates the template holding its lock exclusively (migrating.LOCK_CLASS): a
    copy of it (a creation, a spare; a spare's claim too, `spares.claim`) waits for the
    migration's commit, so a workspace is never made of the template a release is changing and
    then left out of it."""
    import psycopg
    from django.db import OperationalError, connection, transaction

    from apps.core.testing import database_url
    from apps.tenancy import cloning
    from apps.tenancy.migrating import LOCK_CLASS

    base = get_tenant_base_schema()
    with psycopg.connect(database_url()) as migrating_it:
        migrating_it.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [LOCK_CLASS, base])
        with pytest.raises(OperationalError, match="lock timeout"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '300ms'")
            cloning.clone_schema(base, "copy_probe")
        migrating_it.rollback()  # the migration is over
    with transaction.atomic():
        cloning.clone_schema(base, "copy_probe")
    assert schema_exists("copy_probe")


def test_migrate_workspaces_takes_the_workspaces_made_after_its_first_list():
    """A workspace whose row committed after the command listed the workspaces (its copy of the
    template was made just before the template's migration) is migrated in the same run."""
    from apps.core import servers
    from apps.tenancy.management.commands.migrate_workspaces import Command

    everyone = list(Workspace.objects.exclude(schema_name="public").values_list("schema_name", flat=True))
    late = everyone[-1]
    listed = Command().with_late(servers.PRIMARY, [schema for schema in everyone if schema != late])
    assert listed[-1] == late and sorted(listed) == sorted(everyone)
