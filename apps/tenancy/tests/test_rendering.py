"""The migration state rendered lean (apps.tenancy.rendering): the SQL of every kind of operation
is the SQL Django writes, from a state cloned as the `migrate` command and the runner start (its
classes shared with the state it was cloned from) and from one rendered in place; also for the
operations after lean renders that read other models' view of a changed one; RunPython sees every
model as it is now."""

from collections.abc import Callable

import pytest
from django.db import migrations, models
from django.db.migrations.migration import Migration
from django.db.migrations.operations.base import Operation
from django.db.migrations.state import ProjectState

from apps.core.db import connection
from apps.tenancy import rendering
from apps.tenancy.rendering import LeanState, renders_lean

pytestmark = pytest.mark.django_db

APP = "tenancy"  # a shared app: the routers let its RunPython run on the public schema
fk = models.ForeignKey
Plan = list[list[Operation]]


def key() -> tuple[str, models.Field]:
    return ("id", models.AutoField(primary_key=True))


def big_key(model: str) -> Operation:
    return migrations.AlterField(model, "id", models.BigAutoField(primary_key=True))


def every_kind() -> Plan:
    """Owners, their items, notes on both; then changes of every kind."""
    return [
        [
            migrations.CreateModel("Owner", [key(), ("name", models.CharField(max_length=20))]),
            migrations.CreateModel(
                "Item",
                [
                    key(),
                    ("owner", fk(f"{APP}.owner", models.CASCADE)),
                    ("title", models.CharField(max_length=20)),
                    ("code", models.CharField(max_length=8, unique=True)),
                ],
            ),
            migrations.CreateModel(
                "Note",
                [
                    key(),
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
            migrations.CreateModel("Tag", [key(), ("owner", fk(f"{APP}.owner", models.CASCADE))]),
        ],
        # Not lean: a referenced primary key's type, a field a relation names, a table, renames.
        [
            big_key("owner"),
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


def owners_and_items() -> list[Operation]:
    return [
        migrations.CreateModel("Owner", [key(), ("code", models.CharField(max_length=8, unique=True))]),
        migrations.CreateModel("Item", [key(), ("owner", fk(f"{APP}.owner", models.CASCADE))]),
    ]


def tags_items_profiles() -> list[Operation]:
    return [
        migrations.CreateModel("Tag", [key()]),
        migrations.CreateModel("Item", [key(), ("tags", models.ManyToManyField(f"{APP}.tag"))]),
        migrations.CreateModel(
            "Profile", [("tag", models.OneToOneField(f"{APP}.tag", models.CASCADE, primary_key=True))]
        ),
        migrations.CreateModel("Ref", [key(), ("profile", fk(f"{APP}.profile", models.CASCADE))]),
    ]


def items_with_a_proxy() -> list[Operation]:
    return [
        migrations.CreateModel("Item", [key(), ("code", models.CharField(max_length=8, unique=True))]),
        migrations.CreateModel("ItemProxy", [], options={"proxy": True}, bases=(f"{APP}.item",)),
        migrations.CreateModel(
            "Note", [key(), ("item", fk(f"{APP}.itemproxy", models.CASCADE, to_field="code"))]
        ),
    ]


def owners_with_a_proxy() -> list[Operation]:
    return [
        migrations.CreateModel("Owner", [key()]),
        migrations.CreateModel("OwnerProxy", [], options={"proxy": True}, bases=(f"{APP}.owner",)),
        migrations.CreateModel("Note", [key(), ("owner", fk(f"{APP}.ownerproxy", models.CASCADE))]),
    ]


def longer_code(model: str) -> Operation:
    return migrations.AlterField(model, "code", models.CharField(max_length=12, unique=True))


# name: (the migrations applied before, rendered; the plan applied after)
CASES: dict[str, Callable[[], tuple[list[Operation], Plan]]] = {
    "every kind of operation": lambda: (every_kind()[0], every_kind()[1:]),
    "a new relation to a model of the start, then the model's key type": lambda: (
        owners_and_items(),
        [
            [
                migrations.AddField(
                    "item", "reviewer", fk(f"{APP}.owner", models.SET_NULL, null=True, related_name="+")
                )
            ],
            [big_key("owner")],
        ],
    ),
    "a new model pointing at a model of the start, then the model's key type": lambda: (
        owners_and_items(),
        [
            [migrations.CreateModel("Note", [key(), ("owner", fk(f"{APP}.owner", models.CASCADE))])],
            [big_key("owner")],
        ],
    ),
    "a new model naming a field of a model of the start, then that field altered": lambda: (
        owners_and_items(),
        [
            [
                migrations.CreateModel(
                    "Tag", [key(), ("owner", fk(f"{APP}.owner", models.CASCADE, to_field="code"))]
                )
            ],
            [longer_code("owner")],
        ],
    ),
    "a many-to-many removed, then its target's key type": lambda: (
        tags_items_profiles(),
        [[migrations.RemoveField("item", "tags"), big_key("tag")]],
    ),
    "a field named through a proxy altered": lambda: (items_with_a_proxy(), [[longer_code("item")]]),
    "a field altered, then named through a proxy": lambda: (
        items_with_a_proxy(),
        [
            [
                longer_code("item"),
                migrations.AddField(
                    "note",
                    "other",
                    fk(f"{APP}.itemproxy", models.CASCADE, to_field="code", null=True, related_name="+"),
                ),
            ]
        ],
    ),
    "a lean change, then a key type in SeparateDatabaseAndState": lambda: (
        owners_with_a_proxy(),
        [
            [
                migrations.AddField("owner", "email", models.CharField(max_length=40, default="")),
                migrations.SeparateDatabaseAndState(
                    database_operations=[big_key("owner")], state_operations=[big_key("owner")]
                ),
            ]
        ],
    ),
}


def a_migration(number: int, operations: list[Operation]) -> Migration:
    """A migration of the probe app, declared as a migration file declares one."""
    return type("Migration", (Migration,), {"operations": operations})(f"{number:04}", APP)


def written(case: str, *, lean: bool, clone: bool) -> tuple[list[list[str]], ProjectState]:
    """The SQL of each migration of the case's plan, applied by Django's `Migration.apply` or by
    `rendering.apply`, from the rendered state before it or a clone of it; and the state after."""
    before, plan = CASES[case]()
    start = ProjectState()
    for operation in before:
        operation.state_forwards(APP, start)
    start.apps  # noqa: B018 - rendered, as `migrate` and the runner render their starting point
    state = start.clone() if clone else start
    sql = []
    for number, operations in enumerate(plan, 2):
        migration = a_migration(number, operations)
        with connection.schema_editor(collect_sql=True, atomic=False) as editor:
            if lean:
                state = rendering.apply(migration, state, editor, collect_sql=True)
            else:
                state = migration.apply(state, editor, collect_sql=True)
        sql.append(editor.collected_sql)
    return sql, state


@pytest.mark.parametrize("clone", [True, False], ids=["cloned", "in place"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_sql_is_django_s(case, clone):
    django_sql, django_state = written(case, lean=False, clone=clone)
    lean_sql, lean_state = written(case, lean=True, clone=clone)
    assert lean_sql == django_sql
    assert lean_state.models == django_state.models


def test_a_key_s_new_type_reaches_the_foreign_keys_that_point_at_it():
    sql, _ = written("every kind of operation", lean=True, clone=True)
    assert any('"owner_id" TYPE bigint' in statement for statement in sql[1])
    assert any('"by_id" TYPE bigint' in statement for statement in sql[1])


def test_rendering_lean_everywhere_would_write_other_sql(monkeypatch):
    """The checks above would see the rule broken: with every operation rendered lean, a foreign
    key keeps the type of the primary key it pointed at."""
    case = "a new relation to a model of the start, then the model's key type"
    django_sql, _ = written(case, lean=False, clone=True)
    monkeypatch.setattr(rendering, "renders_lean", lambda *arguments: True)
    lean_sql, _ = written(case, lean=True, clone=True)
    assert lean_sql != django_sql
    assert any('"owner_id" TYPE bigint' in statement for statement in django_sql[1])
    assert not any('"owner_id" TYPE bigint' in statement for statement in lean_sql[1])


def started() -> LeanState:
    state = LeanState()
    state.apps  # noqa: B018
    for operation in every_kind()[0]:
        with state.readied(operation, APP):
            operation.state_forwards(APP, state)
    return state


def test_a_lean_change_renders_the_changed_model_alone_and_marks_the_rest_stale():
    state = started()
    item, note = state.apps.get_model(APP, "item"), state.apps.get_model(APP, "note")
    assert not state.rendered_stale  # new models: nothing pointed at them

    add = migrations.AddField("owner", "email", models.CharField(max_length=40, default=""))
    with state.readied(add, APP):
        add.state_forwards(APP, state)

    assert state.apps.get_model(APP, "item") is item  # not rendered again (Django's would be)
    assert state.apps.get_model(APP, "note") is note
    assert state.apps.get_model(APP, "owner")._meta.get_field("email")
    assert state.rendered_stale and state.is_delayed

    # An operation that is not lean starts from the whole state rendered afresh.
    change = big_key("owner")
    with state.readied(change, APP):
        assert not state.rendered_stale
        item = state.apps.get_model(APP, "item")
        assert item._meta.get_field("owner").related_model is state.apps.get_model(APP, "owner")
        change.state_forwards(APP, state)


def test_a_cloned_state_is_stale_until_rendered_afresh():
    start = started()
    clone = LeanState.adopt(start.clone())
    assert clone.rendered_stale  # its classes look their relations up in the start's registry
    with clone.readied(migrations.RunPython(migrations.RunPython.noop), APP):
        assert not clone.rendered_stale
    assert type(start.clone()) is ProjectState  # Django's clone: a plain state


@pytest.mark.parametrize(
    ("operation", "lean"),
    [
        (migrations.AddField("owner", "age", models.IntegerField(default=0)), True),
        (migrations.AddField("owner", "tags", models.ManyToManyField(f"{APP}.item")), False),
        (migrations.AlterField("item", "title", models.CharField(max_length=99)), True),
        (migrations.AlterField("item", "code", models.CharField(max_length=99, unique=True)), False),
        (big_key("item"), False),
        (migrations.RemoveField("item", "title"), True),
        (migrations.RenameField("item", "title", "label"), False),
        (migrations.AlterModelOptions("owner", {"ordering": ["name"], "verbose_name": "person"}), True),
        (migrations.AlterModelOptions("owner", {"managed": False}), False),
        (migrations.AlterModelTable("owner", "elsewhere"), False),
        (migrations.AddIndex("item", models.Index(fields=["title"], name="probe_index")), True),
        (migrations.RunSQL("SELECT 1"), True),
        (migrations.RunSQL("SELECT 1", state_operations=[migrations.DeleteModel("note")]), False),
        (migrations.RunPython(migrations.RunPython.noop), False),
        (migrations.RenameModel("Item", "Thing"), False),
    ],
)
def test_which_operations_render_lean(operation, lean):
    assert renders_lean(operation, APP, started()) is lean


def test_a_field_of_a_model_with_a_proxy_never_renders_lean():
    state = ProjectState()
    for operation in items_with_a_proxy():
        operation.state_forwards(APP, state)
    assert not renders_lean(migrations.AddField("item", "age", models.IntegerField(default=0)), APP, state)
    assert renders_lean(migrations.AddField("note", "age", models.IntegerField(default=0)), APP, state)


def test_run_python_after_lean_changes_from_a_clone_sees_every_model_as_it_is_now():
    seen: dict[str, list[str]] = {}

    def read(apps, schema_editor):
        owner = apps.get_model(APP, "owner")
        seen["owner"] = [field.name for field in owner._meta.get_fields()]
        # A query through the reverse relation a lean change made, and through two relations.
        str(owner.objects.filter(tag__id=1).query)
        item = apps.get_model(APP, "note")._meta.get_field("item").related_model
        seen["item's owner"] = [
            f.name for f in item._meta.get_field("owner").related_model._meta.get_fields()
        ]

    start = LeanState()
    start.apps  # noqa: B018
    with connection.schema_editor(atomic=False) as editor:  # run, in the test's transaction
        rendering.apply(a_migration(1, every_kind()[0]), start, editor)
        plan = every_kind()[1] + [migrations.RunPython(read)]
        rendering.apply(a_migration(2, plan), start.clone(), editor)
    assert "tag" in seen["owner"] and "email" in seen["owner"]
    assert "email" in seen["item's owner"]
