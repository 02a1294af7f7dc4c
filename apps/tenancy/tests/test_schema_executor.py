"""The migration executor of `migrate` (apps.tenancy.migrating.SchemaExecutor): a migration the
routers keep out of the schema moves the state on without rendering it and is recorded, touching
nothing in the database; one that runs in the schema runs as Django runs it."""

import pytest
from django.db.migrations.recorder import MigrationRecorder

from apps.core.db import connection
from apps.tenancy.migrating import SchemaExecutor

pytestmark = pytest.mark.django_db

TEMPLATE = "workspace_template"


def a_step(executor: SchemaExecutor, key: tuple[str, str]):
    """The state just before migration `key`, rendered as Django's `migrate` hands it over, the
    one-step plan and Django's whole plan."""
    state = executor.loader.project_state(key, at_end=False)
    state.apps  # noqa: B018
    migration = executor.loader.graph.nodes[key]
    full_plan = executor.migration_plan(executor.loader.graph.leaf_nodes(), clean_start=True)
    return state, [(migration, False)], full_plan


def recorded(key: tuple[str, str]) -> int:
    return MigrationRecorder(connection).migration_qs.filter(app=key[0], name=key[1]).count()


def exists(schema: str, table: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f'"{schema}"."{table}"'])
        return bool(cursor.fetchone()[0])


def test_a_workspace_apps_migration_on_the_public_schema_moves_the_state_on_unrendered_and_is_recorded():
    connection.set_schema_to_public()
    said: list[str] = []
    executor = SchemaExecutor(connection, lambda action, *rest: said.append(action))
    key = ("contacts", "0001_initial")
    assert not executor.runs_here(executor.loader.graph.nodes[key])
    state, plan, full_plan = a_step(executor, key)
    assert ("contacts", "contact") not in state.models
    before = recorded(key)

    state = executor._migrate_all_forwards(state, plan, full_plan, fake=False, fake_initial=False)

    assert ("contacts", "contact") in state.models  # the state moved on
    assert "apps" not in state.__dict__  # and was not rendered
    assert said == ["apply_start", "apply_success"]
    assert recorded(key) == before + 1
    assert not exists("public", "contacts_contact")
    # Asked for, it renders with the new model, as Django's would have.
    assert state.apps.get_model("contacts", "Contact")._meta.db_table == "contacts_contact"


def test_a_public_apps_migration_in_a_workspace_schema_is_recorded_and_makes_nothing():
    connection.set_schema(TEMPLATE)
    try:
        executor = SchemaExecutor(connection)
        key = ("tenancy", "0001_initial")
        assert not executor.runs_here(executor.loader.graph.nodes[key])
        state, plan, full_plan = a_step(executor, key)
        before = recorded(key)
        state = executor._migrate_all_forwards(state, plan, full_plan, fake=False, fake_initial=False)
        assert ("tenancy", "workspace") in state.models
        assert recorded(key) == before + 1
        assert not exists(TEMPLATE, "tenancy_workspace")
    finally:
        connection.set_schema_to_public()


def test_a_migration_that_runs_in_the_schema_is_rendered_again_and_applied_as_django_applies_it():
    connection.set_schema(TEMPLATE)
    try:
        said: list[str] = []
        executor = SchemaExecutor(connection, lambda action, *rest: said.append(action))
        key = ("contacts", "0004_default_plural_names")  # options only: nothing changes in the schema
        assert executor.runs_here(executor.loader.graph.nodes[key])
        state, plan, full_plan = a_step(executor, key)
        # As after a migration that was only recorded: not rendered.
        state.__dict__.pop("apps")
        before = recorded(key)
        state = executor._migrate_all_forwards(state, plan, full_plan, fake=False, fake_initial=False)
        assert said == ["render_start", "render_success", "apply_start", "apply_success"]
        assert "apps" in state.__dict__
        assert recorded(key) == before + 1
    finally:
        connection.set_schema_to_public()
