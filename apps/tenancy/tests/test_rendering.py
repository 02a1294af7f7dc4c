"""The migration state rendered lean (apps.tenancy.rendering.LeanState): the SQL of every kind of
operation is the SQL Django writes, also for the operations after lean renders that read other
models' view of a changed one; RunPython sees every model as it is now."""

from collections.abc import Callable

import pytest
from django.db import migrations, models
from django.db.migrations.migration import Migration
from django.db.migrations.state import ProjectState

from apps.core.db import connection
from apps.tenancy.rendering import LeanState

pytestmark = pytest.mark.django_db

APP = "tenancy"  # a shared app: the routers let its RunPython run on the public schema


def history() -> list[list[migrations.operations.base.Operation]]:
    """Migrations of a small app: owners, their items, notes on both; then changes of every kind."""
    fk = models.ForeignKey
    return [
        [
            migrations.CreateModel(
                "Owner",
                [("id", models.AutoField(primary_key=True)), ("name", models.CharField(max_length=20))],
            ),
            migrations.CreateModel(
                "Item",
                [
                    ("id", models.AutoField(primary_key=True)),
                    ("owner", fk(f"{APP}.owner", models.CASCADE)),
                    ("title", models.CharField(max_length=20)),
                    ("code", models.CharField(max_length=8, unique=True)),
                ],
            ),
            migrations.CreateModel(
                "Note",
                [
                    ("id", models.AutoField(primary_key=True)),
                    ("item", fk(f"{APP}.item", models.CASCADE)),
                    ("by", fk(f"{APP}.owner", models.CASCADE, related_name="+")),
                    ("code", fk(f"{APP}.item", models.CASCADE, to_field="code", related_name="+")),
                ],
            ),
        ],
        # Lean: nothing another model's SQL reads through a relation changes.
        [
            migrations.AddField("owner", "email", models.CharField(max_length=40, default="")),
            migrations.AlterField("item", "title", models.CharField(max_length=60)),
            migrations.AddIndex("item", models.Index(fields=["title"], name="probe_title")),
            migrations.AddConstraint("owner", models.UniqueConstraint(fields=["email"], name="probe_email")),
            migrations.AlterModelOptions("note", {"ordering": ["id"]}),
            migrations.AddField(
                "note", "extra", fk(f"{APP}.owner", models.SET_NULL, null=True, related_name="+")
            ),
            migrations.RemoveField("note", "extra"),
        ],
        # Not lean: a referenced primary key's type, a field a relation names, a table, renames.
        [
            migrations.AlterField("owner", "id", models.BigAutoField(primary_key=True)),
            migrations.AlterField("item", "code", models.CharField(max_length=12, unique=True)),
        ],
        [
            migrations.AddField("item", "size", models.IntegerField(default=0)),
            migrations.AlterModelTable("owner", "probe_people"),
            migrations.AddField("owner", "phone", models.CharField(max_length=20, default="")),
            migrations.RenameModel("Item", "Thing"),
            migrations.AddField("note", "body", models.TextField(default="")),
            migrations.RenameField("thing", "title", "label"),
            migrations.DeleteModel("note"),
        ],
    ]


def a_migration(number: int, operations: list) -> Migration:
    """A migration of the probe app, declared as a migration file declares one."""
    return type("Migration", (Migration,), {"operations": operations})(f"{number:04}", APP)


def applied(state: ProjectState) -> tuple[list[list[str]], ProjectState]:
    """The SQL of each migration of `history()` from an empty project, and the state after."""
    state.apps  # noqa: B018 - rendered, as `migrate` hands it over
    written = []
    for number, operations in enumerate(history(), 1):
        migration = a_migration(number, operations)
        with connection.schema_editor(collect_sql=True, atomic=False) as editor:
            state = migration.apply(state, editor, collect_sql=True)
        written.append(editor.collected_sql)
    return written, state


class AlwaysLean(LeanState):
    """Renders the changed model alone for every change: what the rule must not do."""

    def _change(self, lean: bool, change: Callable[..., None], *args: object) -> None:
        super()._change(True, change, *args)


def test_every_kind_of_operation_writes_the_sql_django_writes():
    django_sql, django_state = applied(ProjectState())
    lean_sql, lean_state = applied(LeanState())

    assert lean_sql == django_sql
    assert lean_state.models == django_state.models
    # The primary key's new type reached the foreign keys that point at it.
    assert any('"owner_id" TYPE bigint' in statement for statement in django_sql[2])
    assert any('"by_id" TYPE bigint' in statement for statement in django_sql[2])


def test_rendering_lean_everywhere_would_write_other_sql():
    """The check above would see the rule broken: with every change rendered lean, the foreign
    keys keep the type of the primary key they pointed at."""
    django_sql, _ = applied(ProjectState())
    lean_sql, _ = applied(AlwaysLean())
    assert lean_sql[:2] == django_sql[:2]
    assert lean_sql[2] != django_sql[2]
    assert not any('"owner_id" TYPE bigint' in statement for statement in lean_sql[2])


def test_a_lean_change_renders_the_changed_model_alone_and_marks_the_rest_stale():
    state = LeanState()
    state.apps  # noqa: B018
    for operation in history()[0]:
        operation.state_forwards(APP, state)
    item, note = state.apps.get_model(APP, "item"), state.apps.get_model(APP, "note")
    assert not state.rendered_stale

    migrations.AddField("owner", "email", models.CharField(max_length=40, default="")).state_forwards(
        APP, state
    )

    assert state.apps.get_model(APP, "item") is item  # not rendered again (Django's would be)
    assert state.apps.get_model(APP, "note") is note
    assert state.apps.get_model(APP, "owner")._meta.get_field("email")
    assert state.rendered_stale and state.is_delayed

    # A change that is not lean renders the whole state afresh, when next asked.
    migrations.AlterField("owner", "id", models.BigAutoField(primary_key=True)).state_forwards(APP, state)
    assert "apps" not in state.__dict__
    owner = state.apps.get_model(APP, "owner")
    assert state.apps.get_model(APP, "item")._meta.get_field("owner").related_model is owner
    assert not state.rendered_stale


@pytest.mark.parametrize(
    ("options", "lean"),
    [
        ({"ordering": ["name"], "verbose_name": "person"}, True),
        ({"db_table": "elsewhere"}, False),
        ({"managed": False}, False),
    ],
)
def test_options_another_model_reads_through_a_relation_are_not_lean(options, lean):
    state = LeanState()
    state.apps  # noqa: B018
    for operation in history()[0]:
        operation.state_forwards(APP, state)
    item = state.apps.get_model(APP, "item")
    state.alter_model_options(APP, "owner", options)
    assert ("apps" in state.__dict__ and state.apps.get_model(APP, "item") is item) is lean


def test_run_python_after_lean_renders_sees_every_model_as_it_is_now():
    seen: list[str] = []

    def read(apps, schema_editor):
        # Through two relations: the note's item's owner, which gained a field in a lean change.
        owner = apps.get_model(APP, "note")._meta.get_field("item").related_model._meta.get_field("owner")
        seen.extend(field.name for field in owner.related_model._meta.get_fields() if field.concrete)

    state = LeanState()
    state.apps  # noqa: B018
    for operation in history()[0]:
        operation.state_forwards(APP, state)
    migrations.AddField("owner", "email", models.CharField(max_length=40, default="")).state_forwards(
        APP, state
    )
    migration = a_migration(2, [migrations.RunPython(read)])
    with connection.schema_editor(atomic=False) as editor:
        migration.apply(state, editor)
    assert "email" in seen


def test_a_state_django_made_is_adopted_in_place():
    state = ProjectState()
    assert LeanState.adopt(state) is state
    assert isinstance(state, LeanState)
    clone = state.clone()
    assert type(clone) is ProjectState  # Django's clone: a plain state, used as a starting point
