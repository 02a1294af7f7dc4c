"""The migration state, rendered again only where an operation's SQL can read the change.

After each operation, Django renders the changed model's class again, and with it every model
related to it, and theirs (`ProjectState._find_reload_model`): through the user model, nearly
every model of this project. The template's ~780 operations rendered ~75,000 model classes,
92 % of its migration's time (bench/RESULTS.md, "Migrations over many workspaces").

Another model's class sees a model through its relations' pointers (its table, its primary key,
the fields a relation names with `to_field`, whether it is managed) and through inheritance (a
proxy or a child subclasses the class). An operation that changes none of these is applied
lean here: only the changed model is rendered again, and the other models keep pointing at its
older class, the same as seen through a pointer. `renders_lean` says which:

- a model created or deleted; indexes, constraints, unique-together, managers, comments, options
  other than `managed`; SQL with no state operations;
- a field added, altered or removed when no field of the change is a primary key or a
  many-to-many, no relation names it, and no proxy or child model subclasses its model.

Any other operation (a rename, a primary key or a referenced field altered, a many-to-many
changed, the table or `managed` changed, RunPython, SeparateDatabaseAndState, an operation of its
own kind) is applied as Django applies it, from a state rendered whole and afresh if lean renders
came before it (or if the state was cloned from another one, whose classes still belong to the
registry they were rendered in): both the state before it, which Django clones, and after it
then read only classes of one registry, up to date.

`apply` is Django's `Migration.apply` with that step before each operation;
`apps.tenancy.migrating` applies every migration with it. bench/RESULTS.md records the schema
this gives compared with Django's (`pg_dump --schema-only` of the public and template schemas, the
`django_migrations` rows, the permissions, the data), and apps/tenancy/tests/test_rendering.py
checks the rule, from a cloned state as the `migrate` command starts, on histories made for it.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db.migrations import operations as ops
from django.db.migrations.migration import Migration
from django.db.migrations.operations.base import Operation
from django.db.migrations.state import ProjectState, StateApps
from django.db.migrations.utils import field_is_referenced  # type: ignore[attr-defined]
from django.db.transaction import atomic

# Operations whose SQL reads the changed model alone, whatever their arguments.
ALWAYS_LEAN = frozenset(
    {
        ops.CreateModel,
        ops.DeleteModel,
        ops.AddIndex,
        ops.RemoveIndex,
        ops.RenameIndex,
        ops.AddConstraint,
        ops.RemoveConstraint,
        ops.AlterConstraint,
        ops.AlterUniqueTogether,
        ops.AlterIndexTogether,
        ops.AlterModelManagers,
        ops.AlterModelTableComment,
    }
)
FIELD_OPERATIONS = frozenset({ops.AddField, ops.AlterField, ops.RemoveField})


def renders_lean(operation: Operation, app_label: str, state: ProjectState) -> bool:
    """Whether `operation` (of a migration of `app_label`, about to be applied to `state`) may
    render the changed model alone (module docstring). Only Django's own operations, by their
    exact class: a subclass may change the state its own way."""
    kind = type(operation)
    if kind in ALWAYS_LEAN:
        return True
    if kind is ops.RunSQL:
        return not operation.state_operations  # type: ignore[attr-defined]
    if kind is ops.AlterModelOptions:
        now = state.models[app_label, operation.name_lower].options  # type: ignore[attr-defined]
        return bool(now.get("managed", True) == operation.options.get("managed", True))  # type: ignore[attr-defined]
    if kind not in FIELD_OPERATIONS:
        return False
    key = (app_label, operation.model_name_lower)  # type: ignore[attr-defined]
    name = operation.name  # type: ignore[attr-defined]
    fields = [] if kind is ops.RemoveField else [operation.field]  # type: ignore[attr-defined]
    old = None if kind is ops.AddField else state.models[key].fields[name]
    if old is not None:
        fields.append(old)
    if any(field.primary_key or field.many_to_many for field in fields):
        return False
    if old is not None and field_is_referenced(state, key, (name, old)):
        return False
    return not subclassed(state, key)


def subclassed(state: ProjectState, key: tuple[str, str]) -> bool:
    """Whether a model of `state` (a proxy, a child) has the model `key` among its bases."""
    label = f"{key[0]}.{key[1]}"
    for model_state in state.models.values():
        for base in model_state.bases:
            if isinstance(base, str):
                if base.lower() == label:
                    return True
            elif getattr(getattr(base, "_meta", None), "label_lower", None) == label:
                return True
    return False


class LeanState(ProjectState):
    """A `ProjectState` rendering lean where the operation allows it (module docstring)."""

    # True while a lean operation changes the state (its reload renders the changed model alone).
    _lean = False
    # The rendered models last rendered lean: stale for an operation that is not lean.
    _stale: StateApps | None = None

    @classmethod
    def adopt(cls, state: ProjectState) -> "LeanState":
        """`state` itself, rendering lean from now on (Django's `clone()` and the loader make
        plain states). A rendered state holding classes of another registry (a clone: its classes
        are shared with the state it was cloned from, and look their relations up there) counts as
        stale: the first operation that is not lean renders it afresh."""
        if type(state) is ProjectState:
            state.__class__ = cls
        assert isinstance(state, cls)
        rendered = state.__dict__.get("apps")
        if rendered is not None and state._stale is not rendered and _foreign(rendered):
            state._stale = rendered
        return state

    @property
    def rendered_stale(self) -> bool:
        """Whether the rendered models hold classes of an older state or of another registry."""
        return self._stale is not None and self.__dict__.get("apps") is self._stale

    @contextmanager
    def readied(self, operation: Operation, app_label: str) -> Iterator[None]:
        """The block in which `operation` changes the state: lean if it may, else from a state
        rendered afresh (before the block, so that Django's clone of it is afresh too)."""
        lean = renders_lean(operation, app_label, self)
        if not lean and self.rendered_stale:
            self.__dict__.pop("apps")
            self.apps  # noqa: B018 - rendered whole, in a registry of its own
            self.is_delayed = False
        self._lean = lean
        try:
            yield
        finally:
            del self._lean

    def _find_reload_model(self, app_label: str, model_name: str, delay: bool = False) -> set[Any]:
        if not self._lean:
            return super()._find_reload_model(app_label, model_name, delay)  # type: ignore[misc]
        if model_name in self.apps.all_models[app_label]:
            # Other models may point at its older class. Delayed, as Django calls a state whose
            # related models were not rendered again: the migrate command renders such a state
            # whole before its post-migrate handlers read it. (A new model: nothing points at it.)
            self.is_delayed = True
            self._stale = self.apps
        return {(app_label, model_name)}


def _foreign(rendered: StateApps) -> bool:
    """Whether `rendered` holds a class rendered in another registry."""
    return any(model._meta.apps is not rendered for model in rendered.get_models(include_auto_created=True))


def apply(
    migration: Migration, project_state: ProjectState, schema_editor: Any, collect_sql: bool = False
) -> LeanState:
    """Django's `Migration.apply`, with the state readied for each operation before Django's
    clone of it is taken (`LeanState.readied`)."""
    state = LeanState.adopt(project_state)
    for operation in migration.operations:
        if collect_sql:
            schema_editor.collected_sql.extend(["--", f"-- {operation.describe()}", "--"])
            if not operation.reduces_to_sql:
                schema_editor.collected_sql.append("-- THIS OPERATION CANNOT BE WRITTEN AS SQL")
                continue
            collected_before = len(schema_editor.collected_sql)
        with state.readied(operation, migration.app_label):
            old_state = state.clone()
            operation.state_forwards(migration.app_label, state)
        atomic_operation = operation.atomic or (migration.atomic and operation.atomic is not False)
        if not schema_editor.atomic_migration and atomic_operation:
            # A transaction forced, as Django does, for an atomic operation in a non-atomic migration.
            with atomic(schema_editor.connection.alias):
                operation.database_forwards(migration.app_label, schema_editor, old_state, state)
        else:
            operation.database_forwards(migration.app_label, schema_editor, old_state, state)
        if collect_sql and collected_before == len(schema_editor.collected_sql):
            schema_editor.collected_sql.append("-- (no-op)")
    return state
