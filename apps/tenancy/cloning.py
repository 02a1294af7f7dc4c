"""A new workspace's schema, copied from the migrated template schema in plain SQL.

django-tenants' own `clone_schema` (a PL/pgSQL function) reads `information_schema`, whose views
walk the catalogue of every schema in the database: creating a workspace grew from 1.7 s with no
other workspace to 30 s with 50 (bench/RESULTS.md). This copy reads `pg_catalog` for the template
schema only, so it costs the same with ten workspaces or ten thousand:

1. each table as `CREATE TABLE ... (LIKE template.t INCLUDING DEFAULTS INCLUDING IDENTITY
   INCLUDING GENERATED)`: columns, NOT NULL, defaults and identity columns with sequences of
   their own;
2. its rows (the migrations applied, content types, permissions, the built-in roles), and each
   identity sequence moved past the copied ids;
3. primary keys, unique, check and exclusion constraints, then the other indexes, then foreign
   keys, each under the template's own name (later migrations drop and alter them by name), from
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
"""

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
    SELECT rel.relname, con.conname, pg_get_constraintdef(con.oid), con.contype = 'f'
    FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid
    JOIN pg_namespace n ON n.oid = rel.relnamespace
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


def _name(identifier: str) -> str:
    return connection.ops.quote_name(identifier)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def clone_schema(source: str, target: str) -> None:
    """Creates schema `target` as a copy of `source` (structure and rows).

    The template's catalogue is read in five queries, and the copy is then sent as one script:
    one round trip for its 900-odd statements instead of one each.
    """
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
        # Definitions read with only the template visible: they name its tables unqualified.
        cursor.execute("SET LOCAL search_path TO " + _name(source))
        cursor.execute(CONSTRAINTS, [source])
        constraints = cursor.fetchall()
        cursor.execute(INDEXES, [source])
        indexes = [
            definition.replace(f" ON {schema}.", f" ON {_name(target)}.", 1)
            for definition, schema in cursor.fetchall()
        ]
        cursor.execute(FUNCTIONS, [source])
        functions = [
            definition.replace(f"FUNCTION {schema}.", f"FUNCTION {_name(target)}.", 1)
            for definition, schema in cursor.fetchall()
        ]
        cursor.execute(TRIGGERS, [source])
        triggers = [
            definition.replace(f" ON {schema}.", f" ON {_name(target)}.", 1)
            for definition, schema in cursor.fetchall()
        ]

        script = [f"CREATE SCHEMA {_name(target)}", "SET LOCAL search_path TO " + _name(target)]
        for table in tables:
            script.extend(_copy_table(source, target, table, columns.get(table, [])))
        script.extend(
            f"ALTER TABLE {_name(table)} ADD CONSTRAINT {_name(name)} {definition}"
            for table, name, definition, _foreign in constraints
        )
        script.extend(indexes)
        script.extend(functions)
        script.extend(triggers)
        # Whoever runs next on this connection chooses its own schema (django-tenants sets it).
        script.append("SET LOCAL search_path TO public")
        # No parameters: psycopg sends the statements as one simple query, in this transaction.
        cursor.execute(";\n".join(script))
    connection.set_schema_to_public()


def _copy_table(source: str, target: str, table: str, columns: list[tuple[str, bool]]) -> list[str]:
    origin, copy = f"{_name(source)}.{_name(table)}", f"{_name(target)}.{_name(table)}"
    statements = [
        f"CREATE TABLE {copy} (LIKE {origin} INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED)"
    ]
    listed = ", ".join(_name(column) for column, _identity in columns)
    if listed:
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
