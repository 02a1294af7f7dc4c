"""Querysets compiled once, for the hottest reads.

Django builds and compiles a queryset's SQL every time it is evaluated. For a one-row read with a
join, that is most of the CPU a tool call costs (bench/RESULTS.md, "MCP endpoint"). A `Prepared`
query is built once per shape with stand-in values, compiled once, and then run with each call's
values: the same SQL, the same rows, the same model instances (with their `select_related`
objects), without the ORM's per-call work.

    by_id = Prepared(lambda every, *, pk, actor_id: Contact.objects.filter(...))
    rows = by_id(Contact.access.all_rows(actor), pk=42, actor_id=actor.pk)

- The positional arguments choose the shape (they must be hashable: flags, enum values); the
  builder runs once per shape and the query it returns must not depend on anything else.
- Only the keyword values vary between calls. Anything else the builder writes into the query (a
  constant, a time computed in Python) is frozen into its SQL.
- A value must reach the SQL as it is (`=`, `IN` of one, a subquery's `=`). One that is changed
  on the way (`icontains` wraps it in `%`, the builder adds 1) is refused when the query is
  prepared, so a shape that cannot be prepared fails at once, never returns wrong rows. A shape
  may leave a value out.
- Integers and strings only; a stand-in never collides with a real value (negative integers
  below any id, strings with a NUL, which PostgreSQL never stores).
- It runs with server-side binding (see `_run`): PostgreSQL parses it once per connection and
  workspace, not on every call (and stops planning it too once a generic plan serves).
- On the event loop it names the workspace's schema at each of its tables (`_qualified`): the
  loop's connections keep one search path, so a request of another workspace neither sets it
  again nor has PostgreSQL plan the statement again (bench/RESULTS.md, "Scale-out").
- Only the call's own values are sent as parameters: the constants the query was built with (the
  keys of a JSON object it builds, a status it filters on) are written into its SQL as literals
  when it is compiled (`_inlined`), so no call pays for adapting them again.
"""

import inspect
import re
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from django.apps import apps
from django.conf import settings
from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute

# Django's own (private) helpers for turning rows into model instances; the stubs leave them out.
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]
from django.db.models.signals import post_init, pre_init
from django_tenants.utils import app_labels, get_public_schema_name
from psycopg import sql as psycopg_sql
from psycopg.types.json import Jsonb
from psycopg.types.numeric import Int2, Int4, Int8

from apps.core import onloop

_INT_STAND_IN = -2_000_000_000  # within every integer column's range, below any id


class NotPreparable(TypeError):
    """A query whose values cannot be substituted after compiling (see the module's notes)."""


@dataclass(frozen=True)
class _Compiled:
    sql: str
    # The same with PostgreSQL's own numbered placeholders ($1, ...) and its percent signs as they
    # are, for the event loop's raw cursors (`_numbered`), which send it without parsing it.
    loop_sql: str
    # That one in pieces, between which the workspace's quoted schema and a dot name its tables
    # (`_qualified`); None when a table of it is not known to be a workspace's or the public one's.
    qualified: tuple[str, ...] | None
    params: tuple[Any, ...]
    slots: tuple[tuple[int, str], ...]  # (position in params, keyword)
    model: type[Model]
    init_list: tuple[str, ...]
    # The model's attribute names when an instance may be made by filling its __dict__ (`_made`).
    plain: tuple[str, ...] | None
    model_fields: slice
    populators: tuple[Any, ...]
    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]
    annotations: tuple[tuple[str, int], ...]
    col_count: int


class Prepared:
    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self._build = build
        self._compiled: dict[Hashable, _Compiled] = {}
        self._lock = threading.Lock()

    def __call__(self, *shape: Hashable, using: str = "default", **values: int | str) -> list[Model]:
        key = (using, shape, tuple(sorted((name, type(value)) for name, value in values.items())))
        compiled = self._compiled.get(key)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(key) or self._compile(shape, values, using)
                self._compiled[key] = compiled
        return _run(compiled, values, using)

    def _compile(self, shape: tuple[Hashable, ...], values: dict[str, int | str], using: str) -> _Compiled:
        stand_ins: dict[str, int | str] = {}
        for index, (name, value) in enumerate(sorted(values.items())):
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise NotPreparable(f"{name}: only integers and strings can be prepared values")
            stand_ins[name] = _INT_STAND_IN - index if isinstance(value, int) else f"\x00{name}\x00"
        queryset = self._build(*shape, **stand_ins)
        if queryset._known_related_objects or queryset._prefetch_related_lookups:  # type: ignore[attr-defined]
            raise NotPreparable("prefetch_related and related managers cannot be prepared")
        compiler = queryset.query.get_compiler(using=using)
        sql, params = compiler.as_sql()
        slots = []
        for position, param in enumerate(params):
            keyword = next((n for n, v in stand_ins.items() if type(param) is type(v) and param == v), None)
            if keyword is not None:
                slots.append((position, keyword))
            elif _changed_stand_in(param):
                raise NotPreparable(f"a value is changed on its way to the SQL ({param!r}): not preparable")
        # Qualified before the constants are written in, so no literal is ever taken for a table.
        sql, params, slots = _inlined(_qualified(sql), params, slots)
        numbered = _numbered(sql)
        pieces = None if _UNKNOWN in sql else tuple(numbered.split(_SCHEMA))
        sql = sql.replace(_SCHEMA, "").replace(_UNKNOWN, "")
        select, klass_info = compiler.select, compiler.klass_info
        fields = klass_info["select_fields"]
        model_fields = slice(fields[0], fields[-1] + 1)
        expressions = [column[0] for column in select[: compiler.col_count]]
        return _Compiled(
            sql=sql,
            loop_sql=numbered.replace(_SCHEMA, "").replace(_UNKNOWN, ""),
            qualified=pieces,
            params=tuple(params),
            slots=tuple(slots),
            model=klass_info["model"],
            init_list=(init_list := tuple(column[0].target.attname for column in select[model_fields])),
            plain=_plain_fields(klass_info["model"], init_list),
            model_fields=model_fields,
            populators=tuple(
                _Related(populator) for populator in get_related_populators(klass_info, select, using)
            ),
            converters=tuple(
                (position, tuple(converters), expression)
                for position, (converters, expression) in compiler.get_converters(expressions).items()
            ),
            annotations=tuple(compiler.annotation_col_map.items()),
            col_count=compiler.col_count,
        )


# Django's placeholders in the SQL it compiles for psycopg: %s, and %% for a percent sign.
_PLACEHOLDER = re.compile(r"%%|%s|%")
# The constants written in as literals (by psycopg's own adapters, which Django's connections use
# for these types): those whose literal PostgreSQL reads as it reads the parameter (the same type,
# or both of unknown type, as strings are sent). Anything else stays a parameter.
_INLINED_TYPES = (str, int, Jsonb, Int2, Int4, Int8)


def _inlined(
    statement: str, params: Any, slots: list[tuple[int, str]]
) -> tuple[str, tuple[Any, ...], list[tuple[int, str]]]:
    """`statement` with every constant parameter written in as a literal (escaped for psycopg's
    placeholders), and the call's values (`slots`) left as parameters, renumbered. The statement
    as it is when its placeholders are not Django's."""
    keyword_at = dict(slots)
    pieces: list[str] = []
    kept: list[Any] = []
    renumbered: list[tuple[int, str]] = []
    position, written = 0, 0
    for match in _PLACEHOLDER.finditer(statement):
        if match.group() == "%%":
            continue
        if match.group() == "%" or position >= len(params):
            return statement, tuple(params), slots
        pieces.append(statement[written : match.start()])
        value = params[position]
        if position in keyword_at or isinstance(value, bool) or not isinstance(value, _INLINED_TYPES):
            if position in keyword_at:
                renumbered.append((len(kept), keyword_at[position]))
            kept.append(value)
            pieces.append("%s")
        else:
            pieces.append(psycopg_sql.Literal(value).as_string().replace("%", "%%"))
        written = match.end()
        position += 1
    if position != len(params):
        return statement, tuple(params), slots
    pieces.append(statement[written:])
    return "".join(pieces), tuple(kept), renumbered


def _numbered(statement: str) -> str:
    """`statement` (psycopg's placeholders: %s, and %% for a percent sign) with PostgreSQL's own
    instead ($1, $2, ... in order, and a percent sign as it is). psycopg parses a statement with
    %s placeholders on each run, from a cache of the last 128 it saw: each workspace's statement is
    its own text on the loop, so with more than a few dozen workspaces it would parse nearly every
    one again (~30 µs). A raw cursor sends a numbered one as it is."""
    numbers = iter(range(1, 1 << 16))

    def placeholder(match: re.Match[str]) -> str:
        if match.group() == "%":
            raise NotPreparable(f"a lone percent sign in {statement!r}")
        return "%" if match.group() == "%%" else f"${next(numbers)}"

    return _PLACEHOLDER.sub(placeholder, statement)


# Where Django's compiler names a table it reads: after FROM or JOIN, quoted, not a column (which
# `EXTRACT(... FROM "t"."c")` or `IS DISTINCT FROM "t"."c"` would be). Django's SQL holds no NUL,
# so the markers below cannot be in it.
_TABLE = re.compile(r'(?<![\w"])((?:FROM|JOIN) )("(?:[^"]|"")+")(?![."])')
_SCHEMA = "\x00"  # here goes the workspace's schema
_UNKNOWN = "\x01"  # a table neither a workspace's nor only the public schema's: not qualified


def _qualified(statement: str) -> str:
    """`statement` with _SCHEMA before each of its workspace tables (the tenant apps', which every
    workspace schema has), nothing before those only the public schema has (found there through
    the search path, as before), and _UNKNOWN at any other."""
    workspace_tables, public_tables = _tables()

    def marked(match: re.Match[str]) -> str:
        keyword, quoted = match.groups()
        name = quoted[1:-1].replace('""', '"')
        if name in workspace_tables:
            return f"{keyword}{_SCHEMA}{quoted}"
        return match.group() if name in public_tables else f"{_UNKNOWN}{match.group()}"

    return _TABLE.sub(marked, statement)


_tables_known: tuple[frozenset[str], frozenset[str]] | None = None


def _tables() -> tuple[frozenset[str], frozenset[str]]:
    """The tables of the tenant apps' models, and those of the models only the public schema has."""
    global _tables_known
    if _tables_known is None:
        in_workspaces = set(app_labels(settings.TENANT_APPS))
        workspace: set[str] = set()
        public: set[str] = set()
        for model in apps.get_models(include_auto_created=True):
            (workspace if model._meta.app_label in in_workspaces else public).add(model._meta.db_table)
        _tables_known = frozenset(workspace), frozenset(public)
    return _tables_known


def _changed_stand_in(param: Any) -> bool:
    if isinstance(param, str):
        return "\x00" in param
    return isinstance(param, int) and abs(param - _INT_STAND_IN) < 1_000_000


def _run(compiled: _Compiled, values: dict[str, int | str], using: str) -> list[Model]:
    params = list(compiled.params)
    for position, name in compiled.slots:
        params[position] = values[name]
    connection = connections[using]
    if onloop.active():
        # On the event loop (apps.core.onloop): awaited on an async connection's raw cursor
        # (numbered placeholders), bound on the server and prepared as below.
        search_path, prefix, rest = _loop_paths(connection)
        if compiled.qualified is not None and prefix is not None:
            # The workspace named at its tables; the rest of the path (the public schema and any
            # after it) is the connection's, the same for every workspace.
            statement, search_path = prefix.join(compiled.qualified), rest
        else:
            statement = compiled.loop_sql
        # On the workspace's lane of the loop's connections (onloop._Pool), whose backend keeps
        # its statement prepared.
        rows = onloop.fetch(statement, params, search_path, getattr(connection, "schema_name", ""))
    else:
        rows = _fetch(connection, compiled.sql, params)
    found = []
    for fetched in rows:
        row = list(fetched[: compiled.col_count])
        for position, converters, expression in compiled.converters:
            value = row[position]
            for converter in converters:
                value = converter(value, expression, connection)
            row[position] = value
        obj = _made(compiled.model, compiled.plain, using, compiled.init_list, row[compiled.model_fields])
        for populator in compiled.populators:
            populator.populate(row, obj)
        for name, position in compiled.annotations:
            setattr(obj, name, row[position])
        found.append(obj)
    return found


def _plain_fields(model: type[Model], init_list: tuple[str, ...]) -> tuple[str, ...] | None:
    """The attribute names of `model`'s concrete fields, when the statement reads every one of
    them in order and nothing of the model's own runs as an instance is made from the database: it
    keeps Django's __init__ and from_db, and none of those attributes is a data descriptor but a
    foreign key's id (a file field's __set__, say, would be skipped)."""
    if model.__init__ is not Model.__init__ or model.from_db.__func__ is not Model.from_db.__func__:  # type: ignore[attr-defined]
        return None
    names = tuple(field.attname for field in model._meta.concrete_fields)
    if names != init_list:
        return None
    for name in names:
        descriptor = type(inspect.getattr_static(model, name, None))
        # A foreign key's id only forgets the related object cached on the instance when it is
        # set: a new instance has none.
        if hasattr(descriptor, "__set__") and descriptor is not ForeignKeyDeferredAttribute:
            return None
    return names


def _made(
    model: type[Model],
    plain: tuple[str, ...] | None,
    using: str,
    init_list: Sequence[str],
    values: Sequence[Any],
) -> Model:
    """What `Model.from_db` makes of a row, without its per-field setattr through __init__ (a few
    per cent of a getContact call): the row's values put in the instance's __dict__ at once, when
    `plain` (`_plain_fields`) says the model allows it."""
    if plain is None or pre_init.has_listeners(model) or post_init.has_listeners(model):
        return model.from_db(using, init_list, values)
    obj = model.__new__(model)
    state = obj._state = ModelState()
    state.adding, state.db = False, using
    obj.__dict__.update(zip(plain, values, strict=True))
    return obj


class _Related:
    """Django's populator of one select_related object (and those below it), whose instances are
    made as `_made` makes the row's own; what it reads of the row and sets on the instances is
    Django's."""

    def __init__(self, populator: Any) -> None:
        self._django = populator
        self.plain = _plain_fields(populator.model_cls, tuple(populator.init_list))
        self.related = tuple(_Related(below) for below in populator.related_populators)

    def populate(self, row: Sequence[Any], from_obj: Model) -> None:
        django = self._django
        if django.reorder_for_init:
            values = django.reorder_for_init(row)
        else:
            values = row[django.cols_start : django.cols_end]
        obj = None
        if values[django.pk_idx] is not None:
            obj = _made(django.model_cls, self.plain, django.db, django.init_list, values)
            for below in self.related:
                below.populate(row, obj)
        django.local_setter(from_obj, obj)
        if obj is not None:
            django.remote_setter(obj, from_obj)


# (schema, with the public schema) -> what `_loop_paths` answers; worked out once per workspace.
_paths: dict[tuple[str, bool], tuple[tuple[str, ...], str | None, tuple[str, ...]]] = {}
_PATHS_KEPT = 10_000


def _loop_paths(connection: Any) -> tuple[tuple[str, ...], str | None, tuple[str, ...]]:
    """The connection's search path (django-tenants' own, its names checked); the quoted schema and
    dot that name the workspace's tables, or None when its path does not start with the workspace
    and then the public schema; and the path to run such qualified statements under."""
    key = (connection.schema_name, connection.include_public_schema)
    found = _paths.get(key)
    if found is None:
        search_path = tuple(connection._get_cursor_search_paths())
        public = get_public_schema_name()
        prefix, rest = None, search_path
        if public in search_path[:2]:
            schema = search_path[0]
            prefix = '"' + schema.replace('"', '""') + '".'
            rest = search_path if schema == public else search_path[1:]
        if len(_paths) >= _PATHS_KEPT:
            _paths.clear()
        found = _paths[key] = (search_path, prefix, rest)
    return found


def _fetch(connection: Any, statement: str, params: list[Any]) -> list[Any]:
    with connection.cursor() as client_side:  # connected, in the workspace's schema
        # Bound on the server (the connection's own cursors bind on the client, as Django's
        # default is): no values quoted into the SQL, and the same text every call, which
        # psycopg prepares after `prepare_threshold` runs on the connection, so PostgreSQL
        # stops parsing it. A prepared statement is parsed again whenever the search_path (the
        # workspace) changed since its last run: PostgreSQL's rule, so no workspace ever runs
        # another's.
        raw = psycopg.Cursor(client_side.cursor.connection)
        wrap = connection.make_debug_cursor if connection.queries_logged else connection.make_cursor
        # A raw DB-API cursor, as Django's own callers pass (the stubs ask for a CursorWrapper).
        with wrap(raw) as cursor:
            cursor.execute(statement, params)
            return cursor.fetchall()
