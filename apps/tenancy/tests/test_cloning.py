"""A workspace schema is the template schema again: the same tables, columns, defaults,
constraints, indexes, trigger functions and triggers under the same names, the same rows, and ids
that go on from the copied ones. Compared in the catalogue, so a migration that adds something
the copy does not carry fails here."""

import pytest
from django.db import connection
from django_tenants.utils import get_tenant_base_schema, schema_context

from apps.accounts.models import Role
from apps.tenancy.cloning import CloneRefused, clone_schema
from apps.tenancy.services import workspace_create

pytestmark = pytest.mark.django_db

CATALOGUE = {
    "columns": """
        SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.attidentity,
               a.attgenerated, pg_get_expr(d.adbin, d.adrelid)
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = %s AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
    """,
    "constraints": """
        -- A CHECK's text comes back cast differently once parsed again (::text for ::varchar):
        -- compared by name; keys and foreign keys by their whole definition.
        SELECT rel.relname, con.conname, con.contype,
               CASE WHEN con.contype = 'c' THEN '' ELSE pg_get_constraintdef(con.oid) END
        FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid
        JOIN pg_namespace n ON n.oid = rel.relnamespace WHERE n.nspname = %s AND con.contype <> 'n'
    """,
    "indexes": """
        -- A partial index's predicate is re-cast like a CHECK: compared up to its WHERE.
        SELECT c.relname, i.indpred IS NOT NULL,
               split_part(replace(pg_get_indexdef(c.oid), quote_ident(n.nspname) || '.', ''), ' WHERE ', 1)
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s
    """,
    "functions": """
        SELECT p.proname, p.prokind, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = %s
    """,
    "triggers": """
        -- Named with its table's schema, like an index.
        SELECT c.relname, t.tgname, replace(pg_get_triggerdef(t.oid), quote_ident(n.nspname) || '.', '')
        FROM pg_trigger t
        JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s AND NOT t.tgisinternal
    """,
    "sequences": """
        SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = %s AND c.relkind = 'S'
    """,
}


def catalogue(schema: str) -> dict[str, set]:
    with connection.cursor() as cursor:
        found = {}
        for part, query in CATALOGUE.items():
            # Definitions read with only this schema visible name its tables unqualified.
            cursor.execute(f"SET search_path TO {connection.ops.quote_name(schema)}")
            cursor.execute(query, [schema])
            found[part] = set(cursor.fetchall())
    connection.set_schema_to_public()
    return found


def rows(schema: str) -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relkind = 'r'",
            [schema],
        )
        tables = [row[0] for row in cursor.fetchall()]
        counted = {}
        for table in tables:
            name = f"{connection.ops.quote_name(schema)}.{connection.ops.quote_name(table)}"
            cursor.execute("SELECT count(*) FROM " + name)  # noqa: S608 (quoted names)
            counted[table] = cursor.fetchone()[0]
    return counted


def test_a_new_workspace_schema_is_the_template_again():
    template = get_tenant_base_schema()
    workspace = workspace_create(name="Copy", domains=["copy.test"], owner_email="owner@copy.test")

    made, expected = catalogue(workspace.schema_name), catalogue(template)

    for part in CATALOGUE:
        assert made[part] == expected[part], part
    assert len(expected["constraints"]) > 100 and any(row[2] == "f" for row in expected["constraints"])
    # Triggers and their functions too (the accounting ledger's balance check).
    assert any(row[1] == "accounting_journalline_balanced" for row in expected["triggers"])
    copied, original = rows(workspace.schema_name), rows(template)
    assert original["django_migrations"] > 0 and original["accounts_role"] == 5
    # The same rows, and the owner the creation added.
    assert {table: count for table, count in copied.items() if table != "accounts_user"} == {
        table: count for table, count in original.items() if table != "accounts_user"
    }
    assert copied["accounts_user"] == original["accounts_user"] + 1


def test_ids_go_on_after_the_copied_rows():
    workspace = workspace_create(name="Ids", domains=["ids.test"], owner_email="owner@ids.test")

    with schema_context(workspace.schema_name):
        highest = max(Role.objects.values_list("pk", flat=True))
        role = Role.objects.create(key="auditor", name="Auditor")

    assert role.pk > highest


def test_what_the_copy_cannot_carry_is_refused_and_nothing_is_left_behind():
    with connection.cursor() as cursor:
        cursor.execute("CREATE SCHEMA odd_template")
        cursor.execute("CREATE TABLE odd_template.t (id integer)")
        cursor.execute("CREATE VIEW odd_template.v AS SELECT id FROM odd_template.t")

    with pytest.raises(CloneRefused, match="view v"):
        clone_schema("odd_template", "odd_copy")

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'odd_copy'")
        assert cursor.fetchone()[0] == 0


def test_the_kept_script_is_made_again_once_the_template_is_migrated():
    template = get_tenant_base_schema()
    first = workspace_create(name="Before", domains=["before.test"], owner_email="owner@before.test")
    quoted = connection.ops.quote_name(template)
    with connection.cursor() as cursor:
        # What a migration of the template does: a table, and its row in django_migrations.
        cursor.execute(f"CREATE TABLE {quoted}.tenancy_probe (id bigint PRIMARY KEY, label text NOT NULL)")
        cursor.execute(
            f"INSERT INTO {quoted}.django_migrations (app, name, applied) "  # noqa: S608
            "VALUES ('tenancy', '9999_probe', now())"
        )

    second = workspace_create(name="After", domains=["after.test"], owner_email="owner@after.test")

    assert "tenancy_probe" not in rows(first.schema_name)
    assert rows(second.schema_name)["tenancy_probe"] == 0
    assert catalogue(second.schema_name) == catalogue(template)
