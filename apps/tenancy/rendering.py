"""The migration state, rendered again only where an operation's SQL can read the change.

After each operation, Django renders the changed model's class again, and with it every model
related to it, and theirs (`ProjectState._find_reload_model`): through the user model, nearly
every model of this project. The template's ~780 operations rendered ~75,000 model classes,
92 % of its migration's time (bench/RESULTS.md, "Migrations over many workspaces").

Another model's class sees a model only through its relations' pointers: its table, its primary
key and the fields a relation names (`to_field`), whether it is managed, a proxy or swapped, and
its order-with-respect-to accessors. An operation that changes none of these for every other
model leaves their classes as good as new for the SQL of the operations after it. Such an
operation is rendered lean here: the changed model alone. The other models keep pointing at an
older class of it, whose surface seen through a pointer is the same.

- Lean: a model created; a field added, altered or removed when it is not a primary key and no
  relation names it; indexes and constraints; options other than the ones above; managers.
- Every other change (a model renamed, a field renamed, a primary key or a field a relation
  names altered, the table or the managed/proxy/swapped options changed, an operation of its
  own kind) is rendered as Django renders it. If lean renders came before it, the state is
  rendered whole and afresh instead (when next asked), so that nothing it reads is older.
- `RunPython` reads models through any relation (a query may join through them): Django
  renders its starting state whole and afresh when the state is "delayed", which a lean render
  marks it, and so does the `migrate` command before its `post_migrate` handlers.

bench/RESULTS.md records the schema this gives compared with Django's (`pg_dump --schema-only`
of the public and template schemas, the `django_migrations` rows, the permissions), and
apps/tenancy/tests/test_rendering.py checks the rule on migrations made for it.
"""

from collections.abc import Callable, Iterable
from typing import Any

from django.db.migrations.state import ProjectState, StateApps
from django.db.migrations.utils import field_is_referenced  # type: ignore[attr-defined]
from django.db.models import Field

# Options another model's class reads through a relation's pointer.
SEEN_THROUGH_RELATIONS = frozenset({"db_table", "managed", "proxy", "swappable", "order_with_respect_to"})


class LeanState(ProjectState):
    """A `ProjectState` rendering lean where the operation allows it (module docstring)."""

    # True while a lean change is made (its reload renders the changed model alone).
    _lean = False
    # The rendered models last rendered lean: stale for any change that is not lean.
    _stale: StateApps | None = None

    @classmethod
    def adopt(cls, state: ProjectState) -> "LeanState":
        """`state` itself, rendering lean from now on (a state Django made: `clone()` and the
        loader make plain ones)."""
        if type(state) is ProjectState:
            state.__class__ = cls
        assert isinstance(state, cls)
        return state

    @property
    def rendered_stale(self) -> bool:
        """Whether the rendered models hold classes of an older state (lean renders came)."""
        return self._stale is not None and self.__dict__.get("apps") is self._stale

    def _change(self, lean: bool, change: Callable[..., None], *args: Any) -> None:
        if not lean or self._lean:
            change(*args)
            return
        self._lean = True
        try:
            change(*args)
        finally:
            del self._lean

    # --- where the rendering happens -------------------------------------------------------

    def _find_reload_model(
        self, app_label: str, model_name: str, delay: bool = False
    ) -> set[tuple[str, str]]:
        if not self._lean:
            return super()._find_reload_model(app_label, model_name, delay)  # type: ignore[misc]
        if model_name in self.apps.all_models[app_label]:
            # Other models may point at its older class. Delayed, as Django calls a state whose
            # other models were not rendered again: RunPython and the migrate command render
            # such a state whole before they read it. (A new model: nothing points at it yet.)
            self.is_delayed = True
            self._stale = self.apps
        return {(app_label, model_name)}

    def reload_model(self, app_label: str, model_name: str, delay: bool = False) -> None:
        if not self._lean and self.rendered_stale:
            self.__dict__.pop("apps")  # rendered whole and afresh when next asked
            return
        super().reload_model(app_label, model_name, delay)

    def reload_models(self, models: Any, delay: bool = True) -> None:
        if not self._lean and self.rendered_stale:
            self.__dict__.pop("apps")
            return
        super().reload_models(models, delay)

    # --- the changes, lean or not ----------------------------------------------------------

    def _named_by_relation(self, app_label: str, model_name: str, name: str, field: Field) -> bool:
        return bool(field.primary_key) or field_is_referenced(self, (app_label, model_name), (name, field))

    def add_model(self, model_state: Any) -> None:
        self._change(True, super().add_model, model_state)

    def add_field(
        self, app_label: str, model_name: str, name: str, field: Field, preserve_default: bool
    ) -> None:
        lean = not field.primary_key
        self._change(lean, super().add_field, app_label, model_name, name, field, preserve_default)

    def alter_field(
        self, app_label: str, model_name: str, name: str, field: Field, preserve_default: bool
    ) -> None:
        old = self.models[app_label, model_name].fields[name]
        lean = not field.primary_key and not self._named_by_relation(app_label, model_name, name, old)
        self._change(lean, super().alter_field, app_label, model_name, name, field, preserve_default)

    def remove_field(self, app_label: str, model_name: str, name: str) -> None:
        old = self.models[app_label, model_name].fields[name]
        lean = not self._named_by_relation(app_label, model_name, name, old)
        self._change(lean, super().remove_field, app_label, model_name, name)

    def alter_model_options(
        self,
        app_label: str,
        model_name: str,
        options: dict[str, Any],
        option_keys: Iterable[str] | None = None,
    ) -> None:
        now = self.models[app_label, model_name].options
        dropped = set(option_keys or ()) - set(options)
        lean = all(
            (options[key] if key in options else None if key in dropped else now.get(key)) == now.get(key)
            for key in SEEN_THROUGH_RELATIONS
        )
        self._change(lean, super().alter_model_options, app_label, model_name, options, option_keys)

    def remove_model_options(
        self, app_label: str, model_name: str, option_name: str, value_to_remove: Any
    ) -> None:
        lean = option_name not in SEEN_THROUGH_RELATIONS
        self._change(lean, super().remove_model_options, app_label, model_name, option_name, value_to_remove)

    def alter_model_managers(self, app_label: str, model_name: str, managers: Any) -> None:
        self._change(True, super().alter_model_managers, app_label, model_name, managers)

    def add_index(self, app_label: str, model_name: str, index: Any) -> None:
        self._change(True, super().add_index, app_label, model_name, index)

    def remove_index(self, app_label: str, model_name: str, index_name: str) -> None:
        self._change(True, super().remove_index, app_label, model_name, index_name)

    def rename_index(self, app_label: str, model_name: str, old_index_name: str, new_index_name: str) -> None:
        self._change(True, super().rename_index, app_label, model_name, old_index_name, new_index_name)

    def add_constraint(self, app_label: str, model_name: str, constraint: Any) -> None:
        self._change(True, super().add_constraint, app_label, model_name, constraint)

    def remove_constraint(self, app_label: str, model_name: str, constraint_name: str) -> None:
        self._change(True, super().remove_constraint, app_label, model_name, constraint_name)

    def alter_constraint(
        self, app_label: str, model_name: str, constraint_name: str, constraint: Any
    ) -> None:
        change = super().alter_constraint  # type: ignore[misc]
        self._change(True, change, app_label, model_name, constraint_name, constraint)
