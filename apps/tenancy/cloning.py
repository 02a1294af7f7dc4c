"""A new workspace's schema, copied from the migrated template schema in plain SQL.

django-tenants' own `clone_schema` (a PL/pgSQL function) reads `information_schema`, whose views
walk the catalogue of every schema in the database: creating a workspace grew from 1.7 s with no
other workspace to 30 s with 50 (bench/RESULTS.md). This copy reads `pg_catalog` for the template
schema only, so it costs the same with ten workspaces or ten thousand:

1. each table as `CREATE TABLE ... (LIKE template.t INCLUDING DEFAULTS INCLUDING IDENTITY
   INCLUDING GENERATED, <its keys>)`: columns, NOT NULL, defaults, identity columns with sequences
   of their own, and its primary key, unique, check and exclusion constraints;
2. the rows of the tables that have any (the migrations applied, content types, permissions, the
   built-in roles), and their identity sequences moved past the copied ids;
3. the other indexes, then each table's foreign keys in one ALTER TABLE, each constraint and
   index under the template's own name (later migrations drop and alter them by name), from
   `pg_get_constraintdef` read with only the template on the search path, so it names the new
   schema's tables when run with only the new schema on it, and `pg_get_indexdef` with the table
   moved to the new schema;
4. the functions an app's migration made (a trigger's function: `pg_get_functiondef`, its name
   moved to the new schema; its body names tables unqualified, so it finds the schema's own on
   the search path), then the triggers on the tables (`pg_get_triggerdef`, the table moved to
   the new schema).

What Django's migrations never make in a workspace schema (views, procedures and aggregates,
sequences that are not an identity column's) is refused with a clear error rather than silently
left out.
It runs in the caller's transaction: a failure leaves no schema behind.

Reading the template's catalogue costs about as much as a third of the copy, and the template
changes only when it is migrated: the script is kept in this process for the template's applied
migrations (`fingerprint`), its schema name written in when it is run (bench/RESULTS.md).
"""

import threading
from dataclasses import dataclass

from apps.core.db import connection

TABLES = """
    SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname
"""
# Everything in the schema that the copy does not know how to carry.
UNSUPPORTED = """
    SELECT 'view ' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %(schema)s AND c.relkind IN ('v', 'm', 'f')
    UNION ALL
    SELECT 'sequence ' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %(schema)s AND c.relkind = 'S'
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'i')
    UNION ALL
    SELECT 'function ' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = %(schema)s AND p.prokind <> 'f'
"""
# Plain functions (a trigger's), and the triggers on the tables, in the order they were made
# (pg_get_triggerdef, like pg_get_indexdef, always names the table with its schema).
FUNCTIONS = """
    SELECT pg_get_functiondef(p.oid), quote_ident(n.nspname) FROM pg_proc p
    JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = %s AND p.prokind = 'f' ORDER BY p.oid
"""
TRIGGERS = """
    SELECT pg_get_triggerdef(t.oid), quote_ident(n.nspname) FROM pg_trigger t
    JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %s AND NOT t.tgisinternal ORDER BY t.oid
"""
# Every table's copied columns (generated ones are computed again), in order.
COLUMNS = """
    SELECT c.relname, a.attname, a.attidentity <> '' FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attnum > 0
      AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY c.relname, a.attnum
"""
# Constraints in the order they can be added: keys and checks first, foreign keys last.
CONSTRAINTS = """
    SELECT rel.relname, con.conname, pg_get_constraintdef(con.oid), con.contype = 'f',
           CASE WHEN target.relnamespace = rel.relnamespace THEN target.relname END
    FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid
    JOIN pg_namespace n ON n.oid = rel.relnamespace
    LEFT JOIN pg_class target ON target.oid = con.confrelid
    WHERE n.nspname = %s AND con.contype IN ('p', 'u', 'c', 'x', 'f') AND con.conislocal
    ORDER BY con.contype = 'f', rel.relname, con.conname
"""
# Indexes that no constraint made (pg_get_indexdef always names the table with its schema).
INDEXES = """
    SELECT pg_get_indexdef(i.indexrelid), quote_ident(n.nspname) FROM pg_index i
    JOIN pg_class rel ON rel.oid = i.indrelid JOIN pg_namespace n ON n.oid = rel.relnamespace
    WHERE n.nspname = %s AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = i.indexrelid)
    ORDER BY rel.relname, i.indexrelid
"""

# An identity sequence moved past the copied ids (or left to start at 1 on an empty table).
SETVAL = (
    "SELECT setval(pg_get_serial_sequence({literal_table}, {literal_column}), "
    "COALESCE(MAX({column}), 1), MAX({column}) IS NOT NULL) FROM {table}"
)


class CloneRefused(RuntimeError):
    pass


# The target's quoted name in a kept script, replaced when it runs: no identifier PostgreSQL or a
# migration makes (it is checked not to occur in the template's definitions).
_TARGET = "atrium_clone_target_9c1f"


@dataclass(frozen=True)
class _Script:
    text: str
    statements: int

    def for_target(self, target: str) -> str:
        return self.text.replace(_name(_TARGET), _name(target))


# (template, fingerprint) -> its copy script.
_scripts: dict[tuple[str, str], _Script] = {}
_scripts_lock = threading.Lock()


def fingerprint(schema: str) -> str:
    """What a template schema is now: a digest of its applied migrations ("" if it has none)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f"{_name(schema)}.django_migrations"])
        if not cursor.fetchone()[0]:
            return ""
        table = f"{_name(schema)}.django_migrations"
        cursor.execute(f"SELECT md5(string_agg(app || '.' || name, ',' ORDER BY app, name)) FROM {table}")  # noqa: S608
        row = cursor.fetchone()
    return row[0] if row and row[0] else ""


def _name(identifier: str) -> str:
    return connection.ops.quote_name(identifier)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def fresh_backend() -> None:
    """Starts the next copy on a new PostgreSQL backend, unless a transaction is open here.

    A copy makes ~1,400 relations, and PostgreSQL checks every catalogue change a backend makes
    against every query plan the backend keeps (`PlanCacheRelCallback`): among them the plan of
    each foreign key's check in each workspace the connection wrote to, kept until the backend
    ends. On a connection that had written to 300 workspaces a copy took 0.70 s against 0.34 s on
    a new one, and 3.9 s by the thousandth (bench/RESULTS.md, "Workspaces"). A new connection
    costs a few milliseconds."""
    if not connection.in_atomic_block:
        connection.close()


def hold_template(source: str) -> None:
    """Keeps the template schema `source` from being migrated until this transaction ends, after
    waiting for a migration of it that is running: what this transaction reads of it (its copy,
    its version) is of one version, and a migration of it waits for the copies being made. The
    runner holds the same key exclusively while it migrates the schema
    (apps.tenancy.migrating.LOCK_CLASS); `migrate_workspaces` lists the workspaces again once the
    template is migrated, so a workspace copied just before is migrated too."""
    from apps.tenancy.migrating import LOCK_CLASS

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock_shared(%s, hashtext(%s))", [LOCK_CLASS, source])


def clone_schema(source: str, target: str) -> None:
    """Creates schema `target` as a copy of `source` (structure and rows), in one round trip for
    its statements, never while `source` is being migrated (`hold_template`). The script of a
    template with migrations is kept (see the module)."""
    hold_template(source)
    version = fingerprint(source)
    script = _scripts.get((source, version)) if version else None
    if script is None:
        script = _script(source)
        if version:
            with _scripts_lock:
                _scripts.clear()  # one template, its current version
                _scripts[(source, version)] = script
    with connection.cursor() as cursor:
        # No parameters: psycopg sends the statements as one simple query, in this transaction.
        cursor.execute(script.for_target(target))
    connection.set_schema_to_public()


def _script(source: str) -> _Script:
    """The statements that copy `source` into the schema `_TARGET`, from its catalogue."""
    target = _TARGET
    with connection.cursor() as cursor:
        cursor.execute(UNSUPPORTED, {"schema": source})
        unsupported = [row[0] for row in cursor.fetchall()]
        if unsupported:
            raise CloneRefused(
                f"The template schema {source} holds what a workspace copy cannot carry: "
                + ", ".join(unsupported)
            )
        cursor.execute(TABLES, [source])
        tables = [row[0] for row in cursor.fetchall()]
        cursor.execute(COLUMNS, [source])
        columns: dict[str, list[tuple[str, bool]]] = {}
        for table, column, identity in cursor.fetchall():
            columns.setdefault(table, []).append((column, identity))
        filled: set[str] = set()
        if tables:
            # The tables that have rows, in one statement.
            cursor.execute(
                " UNION ALL ".join(
                    f"SELECT {_literal(table)} WHERE EXISTS (SELECT 1 FROM {_name(source)}.{_name(table)})"  # noqa: S608
                    for table in tables
                )
            )
            filled = {row[0] for row in cursor.fetchall()}
        # Definitions read with only the template visible: they name its tables unqualified.
        cursor.execute("SET LOCAL search_path TO " + _name(source))
        cursor.execute(CONSTRAINTS, [source])
        keys: dict[str, list[str]] = {}
        # table -> (constraint, the table of this schema it references; None: another schema's)
        foreign: dict[str, list[tuple[str, str | None]]] = {}
        for table, name, definition, is_foreign, referenced in cursor.fetchall():
            constraint = f"CONSTRAINT {_name(name)} {definition}"
            if is_foreign:
                foreign.setdefault(table, []).append((constraint, referenced))
            else:
                keys.setdefault(table, []).append(constraint)
        read: dict[str, list[tuple[str, str]]] = {}
        for part, query in (("indexes", INDEXES), ("functions", FUNCTIONS), ("triggers", TRIGGERS)):
            cursor.execute(query, [source])
            read[part] = cursor.fetchall()
        cursor.execute("SET LOCAL search_path TO public")

    definitions = [d for listed in keys.values() for d in listed]
    definitions += [d for listed in foreign.values() for d, _referenced in listed]
    definitions += [definition for rows in read.values() for definition, _schema in rows]
    if any(target in definition for definition in definitions):
        raise CloneRefused(f"The template schema {source} names {target}, the copy's stand-in for its name.")
    # Each index and trigger named with its table's schema, each function with its own: the copy's.
    indexes = [d.replace(f" ON {schema}.", f" ON {_name(target)}.", 1) for d, schema in read["indexes"]]
    functions = [
        d.replace(f"FUNCTION {schema}.", f"FUNCTION {_name(target)}.", 1) for d, schema in read["functions"]
    ]
    triggers = [d.replace(f" ON {schema}.", f" ON {_name(target)}.", 1) for d, schema in read["triggers"]]
    script = [f"CREATE SCHEMA {_name(target)}", "SET LOCAL search_path TO " + _name(target)]
    # A foreign key is made with its (empty) table when what it references exists by then:
    # PostgreSQL then has no rows to check and no table to alter again. The tables are made
    # referenced first; the keys of a table with rows, and of a cycle, are added at the end.
    created: set[str] = set()
    added_later: dict[str, list[str]] = {}
    for table in _referenced_first(tables, foreign):
        made_with: list[str] = []
        for constraint, referenced in foreign.get(table, []):
            if table not in filled and (referenced is None or referenced == table or referenced in created):
                made_with.append(constraint)
            else:
                added_later.setdefault(table, []).append(constraint)
        script.extend(
            _copy_table(
                source,
                target,
                table,
                columns.get(table, []),
                [*keys.get(table, []), *made_with],
                table in filled,
            )
        )
        created.add(table)
    script.extend(indexes)
    # The rest of a table's foreign keys in one statement: one lock and one catalogue update.
    script.extend(
        f"ALTER TABLE {_name(table)} " + ", ".join(f"ADD {c}" for c in listed)
        for table, listed in added_later.items()
    )
    script.extend(functions)
    script.extend(triggers)
    # Whoever runs next on this connection chooses its own schema (django-tenants sets it).
    script.append("SET LOCAL search_path TO public")
    return _Script(";\n".join(script), len(script))


def _referenced_first(tables: list[str], foreign: dict[str, list[tuple[str, str | None]]]) -> list[str]:
    """The tables in an order where each comes after the tables its foreign keys reference, as far
    as cycles allow; otherwise by name."""
    ordered: list[str] = []
    placed: set[str] = set()
    visiting: set[str] = set()

    def place(table: str) -> None:
        if table in placed or table in visiting:
            return
        visiting.add(table)
        for _constraint, referenced in foreign.get(table, []):
            if referenced is not None and referenced != table and referenced in known:
                place(referenced)
        visiting.discard(table)
        placed.add(table)
        ordered.append(table)

    known = set(tables)
    for table in tables:
        place(table)
    return ordered


def _copy_table(
    source: str,
    target: str,
    table: str,
    columns: list[tuple[str, bool]],
    constraints: list[str],
    filled: bool,
) -> list[str]:
    origin, copy = f"{_name(source)}.{_name(table)}", f"{_name(target)}.{_name(table)}"
    elements = ["LIKE " + origin + " INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED", *constraints]
    statements = [f"CREATE TABLE {copy} ({', '.join(elements)})"]
    listed = ", ".join(_name(column) for column, _identity in columns)
    if not filled or not listed:
        return statements  # a new identity sequence starts where the template's empty one did
    statements.append(
        f"INSERT INTO {copy} ({listed}) OVERRIDING SYSTEM VALUE SELECT {listed} FROM {origin}"  # noqa: S608
    )
    statements.extend(
        SETVAL.format(
            literal_table=_literal(copy),
            literal_column=_literal(column),
            column=_name(column),
            table=copy,
        )
        for column, identity in columns
        if identity
    )
    return statements
