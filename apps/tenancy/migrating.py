"""Migrating thousands of workspace schemas: each schema in one transaction, on a pool of processes.

django-tenants' executors run Django's whole `migrate` command once per schema: the migration
files read and the graph built again, the state of every applied migration rendered into model
classes again (the most of a second it takes even when nothing is to be done), and each migration
committed on its own, so a crash between two migrations leaves a schema half migrated.

Here, each process keeps a `Migrator`: for each set of applied migrations it meets (every
workspace copied from the same template has the same), it builds the graph, the plan and the
rendered state before the plan once, and then migrates a schema by cloning that state and applying
the plan in ONE transaction, with the schema's `django_migrations` rows: PostgreSQL's DDL is
transactional, so a crash, a lost connection or a failing operation leaves the schema either fully
migrated or as it was, and a rerun only has what is left to do. A schema is locked (an advisory
lock for the transaction) and its applied migrations read again under the lock, so two runs never
migrate it twice. `lock_timeout` bounds the wait for a table a request is using: the schema then
fails this time (reported, the others go on) rather than queueing the workspace's requests behind
it; the next run retries it.

A plan with a non-atomic migration (`atomic = False`, e.g. `AddIndexConcurrently`) cannot run in
one transaction: that schema is migrated as Django does, one migration at a time.

A `Migrator` made for a database server (`server`, a key of apps.core.servers) keeps the default
connection on that server while it migrates (`servers.pinned`), so the same runner serves each
server's template and workspace schemas. The template itself goes through it too
(`migrate_template`): it is the first schema of its starting point, so the plan prepared there is
the one its copies take, in the parent process before the pool is forked (the children inherit it
and prepare nothing when every workspace is at the template's starting point).
"""

import functools
import multiprocessing
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps as global_apps
from django.conf import settings
from django.core.management.commands import migrate
from django.db import DEFAULT_DB_ALIAS, connections, router, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.migration import Migration
from django.db.migrations.state import ProjectState
from django.db.models.signals import post_migrate, pre_migrate

from apps.core import servers
from apps.tenancy import rendering

# The first key of the per-schema advisory lock (the second is the schema name's hash).
LOCK_CLASS = 0x5A7E

Plan = list[tuple[Migration, bool]]


@dataclass
class Outcome:
    """What migrating one schema did: the migrations applied (none: it was up to date), or why
    it failed (and then nothing of it was kept, unless `atomic` is False)."""

    schema: str
    applied: list[str] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    atomic: bool = True


@dataclass
class _Prepared:
    executor: "SchemaExecutor"
    plan: Plan
    state: ProjectState | None
    atomic: bool
    # The plan's SQL, when every operation reduces to SQL (no RunPython): run as it is in each
    # schema of this starting point, with the rows `records` added to its django_migrations.
    script: str | None = None
    records: list[tuple[str, str]] = field(default_factory=list)


class _NotAtomic(Exception):
    pass


class SchemaExecutor(MigrationExecutor):
    """Django's executor, rendering the migration state only for the migrations that run in the
    schema the connection is on.

    Django renders the state's models again after every operation (each model related to the one
    changed, and theirs: nearly every model of this project, through the user model), also for the
    migrations the routers keep out of the schema, whose operations then do nothing. The public
    schema runs the migrations of a dozen apps and was rendered through those of all 40: 171 s of
    a new installation's 337 s of migrating (bench/RESULTS.md, "Migrations"). Here a migration
    of an app the routers keep out of this database (`router.allow_migrate` False for its app, the
    only thing this project's routers decide by) only moves the state on, unrendered, and is
    recorded; the state is rendered again before the next migration that runs here. Faked plans
    are left to Django.

    The migrations that run are applied by `rendering.apply`: an operation renders the changed
    model alone where no other model's SQL can read the change (apps.tenancy.rendering)."""

    def _migrate_all_forwards(
        self, state: ProjectState, plan: Plan, full_plan: Plan, fake: bool, fake_initial: bool
    ) -> ProjectState:
        left = {migration for migration, _backwards in plan}
        for migration, _backwards in full_plan:
            if not left:
                break
            if migration not in left:
                continue
            left.remove(migration)
            if not fake and not self.runs_here(migration):
                state = self._record_only(state, migration)
                continue
            if "apps" not in state.__dict__:
                if self.progress_callback:
                    self.progress_callback("render_start")
                state.apps  # noqa: B018 - rendered before the migration, as Django does
                if self.progress_callback:
                    self.progress_callback("render_success")
            state = self.apply_migration(state, migration, fake=fake, fake_initial=fake_initial)
        return state

    def apply_migration(
        self, state: ProjectState, migration: Migration, fake: bool = False, fake_initial: bool = False
    ) -> ProjectState:
        # Django's, with the migration applied by `rendering.apply` (its own `apply` shadowed on
        # the instance while it runs: Django's executor calls it in the middle of its own steps).
        migration.apply = functools.partial(rendering.apply, migration)  # type: ignore[method-assign]
        try:
            return super().apply_migration(state, migration, fake=fake, fake_initial=fake_initial)
        finally:
            del migration.apply

    def runs_here(self, migration: Migration) -> bool:
        return router.allow_migrate(self.connection.alias, migration.app_label) is not False

    @staticmethod
    def moved_on(state: ProjectState, migration: Migration) -> ProjectState:
        """`state` with `migration`'s changes, not rendered (rendered again when next asked)."""
        state.__dict__.pop("apps", None)
        migration.mutate_state(state, preserve=False)
        return state

    def _record_only(self, state: ProjectState, migration: Migration) -> ProjectState:
        if self.progress_callback:
            self.progress_callback("apply_start", migration, False)
        state = self.moved_on(state, migration)
        self.record_migration(migration)
        if self.progress_callback:
            self.progress_callback("apply_success", migration, False)
        return state


class MigrateCommand(migrate.Command):
    """Django's `migrate` on `SchemaExecutor`: the command django-tenants runs for each schema
    (settings TENANT_BASE_MIGRATE_COMMAND). Django's command makes its executor itself, from its
    module's name for the class, which is pointed at `SchemaExecutor` while it runs."""

    def handle(self, *args: Any, **options: Any) -> None:
        kept = migrate.MigrationExecutor  # type: ignore[attr-defined]
        migrate.MigrationExecutor = SchemaExecutor  # type: ignore[attr-defined]
        try:
            super().handle(*args, **options)
        finally:
            migrate.MigrationExecutor = kept  # type: ignore[attr-defined]


class Migrator:
    """Migrates workspace schemas on one connection, preparing each distinct starting point once."""

    def __init__(
        self, using: str = DEFAULT_DB_ALIAS, lock_timeout: str | None = None, server: str | None = None
    ) -> None:
        self.using = using
        self.lock_timeout = lock_timeout or settings.ATRIUM_MIGRATION_LOCK_TIMEOUT
        # The database server whose schemas this migrates (None: wherever the connection goes).
        self.server = server
        self._prepared: dict[frozenset[tuple[str, str]], _Prepared] = {}

    def on_server(self) -> AbstractContextManager[object]:
        """The block on this migrator's server (the default connection kept there)."""
        if self.server is None or self.using != DEFAULT_DB_ALIAS:
            return nullcontext()
        return servers.pinned(self.server)

    def migrate_schema(self, schema: str) -> Outcome:
        with self.on_server():
            return self._migrate_schema(schema)

    def _migrate_schema(self, schema: str) -> Outcome:
        connection = connections[self.using]
        start = time.perf_counter()
        outcome = Outcome(schema)
        try:
            try:
                self._run(schema, outcome, atomic=True)
            except _NotAtomic:
                outcome.atomic = False
                self._run(schema, outcome, atomic=False)
        except Exception as error:  # one schema's failure is reported; the others go on
            outcome.error = f"{type(error).__name__}: {error}".strip()
            if outcome.atomic:
                outcome.applied = []  # rolled back with the transaction
        finally:
            connection.set_schema_to_public()  # type: ignore[attr-defined]
        outcome.seconds = time.perf_counter() - start
        return outcome

    def _run(self, schema: str, outcome: Outcome, *, atomic: bool) -> None:
        connection = connections[self.using]
        quote = connection.ops.quote_name
        with transaction.atomic(using=self.using) if atomic else nullcontext():
            with connection.cursor() as cursor:
                if atomic:
                    cursor.execute("SELECT set_config('lock_timeout', %s, true)", [self.lock_timeout])
                    cursor.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [LOCK_CLASS, schema])
                cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f"{quote(schema)}.django_migrations"])
                if not cursor.fetchone()[0]:
                    raise LookupError(
                        f"schema {schema} has no django_migrations table (no such workspace schema?)"
                    )
                cursor.execute(f"SELECT app, name FROM {quote(schema)}.django_migrations")  # noqa: S608
                applied = frozenset(cursor.fetchall())
            connection.set_schema(schema)  # type: ignore[attr-defined]
            prepared = self._prepare(applied)
            if not prepared.plan:
                return
            if atomic and not prepared.atomic:
                raise _NotAtomic
            assert prepared.state is not None
            if atomic and prepared.script is not None:
                with connection.cursor() as cursor:
                    cursor.execute(prepared.script)
                    cursor.execute(
                        f"INSERT INTO {quote(schema)}.django_migrations (app, name, applied) "
                        "SELECT unnest(%s::text[]), unnest(%s::text[]), now()",
                        [[app for app, _ in prepared.records], [name for _, name in prepared.records]],
                    )
            else:
                # The recorder's table is there (read above): no introspection of the schema.
                prepared.executor.recorder._has_table = True  # type: ignore[attr-defined]
                prepared.executor.migrate(
                    prepared.executor.loader.graph.leaf_nodes(),
                    plan=prepared.plan,
                    state=prepared.state.clone(),
                )
            outcome.applied = [f"{migration.app_label}.{migration.name}" for migration, _ in prepared.plan]
            # What Django's migrate command does after migrating: content types and permissions
            # of new models, in the same transaction (only the apps the plan touched can have any).
            labels = {migration.app_label for migration, _ in prepared.plan}
            for app_config in global_apps.get_app_configs():
                if app_config.label in labels and app_config.models_module is not None:
                    post_migrate.send(
                        sender=app_config,
                        app_config=app_config,
                        verbosity=0,
                        interactive=False,
                        using=self.using,
                        apps=global_apps,
                        plan=prepared.plan,
                    )

    def _prepare(self, applied: frozenset[tuple[str, str]]) -> _Prepared:
        """The executor, plan and rendered starting state for schemas with these migrations
        applied (the connection is on one of them)."""
        prepared = self._prepared.get(applied)
        if prepared is not None:
            return prepared
        connection = connections[self.using]
        executor = SchemaExecutor(connection)
        executor.loader.check_consistent_history(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        if any(backwards for _migration, backwards in plan):
            raise RuntimeError("the schema has migrations applied that this code does not have")
        state = None
        if plan:
            state = executor._create_project_state(with_applied_migrations=True)  # type: ignore[attr-defined]
            state.apps  # noqa: B018 - rendered once here, cloned for each schema
            # Django's own pre-migrate hooks (content types' renames join the plan): once per plan.
            for app_config in global_apps.get_app_configs():
                if app_config.models_module is not None:
                    pre_migrate.send(
                        sender=app_config,
                        app_config=app_config,
                        verbosity=0,
                        interactive=False,
                        using=self.using,
                        apps=state.apps,
                        plan=plan,
                    )
        prepared = _Prepared(executor, plan, state, all(migration.atomic for migration, _ in plan))
        if (
            state is not None
            and prepared.atomic
            and all(operation.reduces_to_sql for migration, _ in plan for operation in migration.operations)
        ):
            prepared.script = self._collect_sql(executor, plan, state)
            prepared.records = [
                key
                for migration, _ in plan
                for key in (migration.replaces or [(migration.app_label, migration.name)])
            ]
        self._prepared[applied] = prepared
        return prepared

    def _collect_sql(self, executor: SchemaExecutor, plan: Plan, state: ProjectState) -> str:
        """The SQL of the plan from this starting point, as `sqlmigrate` writes it (nothing run).

        Every workspace schema is a copy of the template with its tables, constraints and indexes
        under the template's names, so schemas with the same migrations applied take the same
        statements; the statements name tables unqualified (the schema's search path picks them)."""
        connection = connections[self.using]
        state = state.clone()
        statements: list[str] = []
        for migration, _backwards in plan:
            if not executor.runs_here(migration):
                state = executor.moved_on(state, migration)
                continue
            state.apps  # noqa: B018 - rendered before the migration (after one that was not)
            with connection.schema_editor(collect_sql=True, atomic=migration.atomic) as editor:
                state = rendering.apply(migration, state, editor, collect_sql=True)
            statements.extend(editor.collected_sql)
        return "\n".join(statements)


# --- many schemas, in several processes ---------------------------------------------------------

_migrator: Migrator | None = None
# A pool child's default connection, kept on its migrator's server for the child's life.
_kept_on_server = ExitStack()


def _start_worker() -> None:
    assert _migrator is not None
    _kept_on_server.enter_context(_migrator.on_server())


def _in_worker(schema: str) -> Outcome:
    assert _migrator is not None
    return _migrator._migrate_schema(schema)


def migrate_schemas(
    schemas: Iterable[str],
    *,
    processes: int = 1,
    chunk: int = 8,
    using: str = DEFAULT_DB_ALIAS,
    server: str | None = None,
    migrator: Migrator | None = None,
) -> Iterator[Outcome]:
    """Migrates each schema, yielding each one's outcome as it ends (in the order they end), on
    database server `server` (None: each schema where the connection's routing puts it).

    With more than one process, the schemas are handed out `chunk` at a time to a pool of
    forked processes, each with its own connection and a copy of `migrator` (default: a new one),
    with the starting points it has prepared already."""
    global _migrator
    schemas = list(schemas)
    if migrator is None:
        migrator = Migrator(using, server=server)
    if processes <= 1 or len(schemas) <= 1:
        with migrator.on_server():
            for schema in schemas:
                yield migrator._migrate_schema(schema)
        return
    # The children must not share this process's connections (fork copies the sockets).
    connections.close_all()
    _migrator = migrator
    context = multiprocessing.get_context("fork")
    try:
        with context.Pool(processes=min(processes, len(schemas)), initializer=_start_worker) as pool:
            yield from pool.imap_unordered(_in_worker, schemas, chunksize=max(1, chunk))
    finally:
        _migrator = None


def migrate_template(migrator: Migrator, verbosity: int = 0) -> Outcome | None:
    """Migrates the template schema of the migrator's server (the primary's by default) as the
    workspace schemas are: in one transaction, preparing the starting point its copies share.

    A template not made yet (no schema, or no `django_migrations` in it: a new installation or a
    new server) is made by Django's `migrate` from the first migration, and None returned: that is
    every migration with its data ones, once per server, not a starting point any copy has."""
    from django.core.management import call_command
    from django_tenants.utils import get_tenant_base_schema

    base = get_tenant_base_schema()
    connection = connections[migrator.using]
    quote = connection.ops.quote_name
    with migrator.on_server():
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [f"{quote(base)}.django_migrations"])
            made = cursor.fetchone()[0]
        if made:
            return migrator._migrate_schema(base)
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE SCHEMA IF NOT EXISTS {quote(base)}")
        call_command("migrate_schemas", tenant=True, schema_name=base, interactive=False, verbosity=verbosity)
        connection.set_schema_to_public()  # type: ignore[attr-defined]
    return None


class Progress:
    """Progress lines while schemas are migrated: done/total, rate, estimated time left, failures."""

    def __init__(
        self, total: int, write: Callable[[str], Any], every: float = 2.0, verbosity: int = 1
    ) -> None:
        self.total, self.write, self.every, self.verbosity = total, write, every, verbosity
        self.start = time.perf_counter()
        self.last = self.start
        self.done = 0
        self.migrated: list[str] = []
        self.current: list[str] = []
        self.failed: dict[str, str] = {}

    def record(self, outcome: Outcome) -> None:
        self.done += 1
        if outcome.error:
            self.failed[outcome.schema] = outcome.error
            self.write(f"[{self.done}/{self.total}] {outcome.schema} FAILED: {outcome.error}")
        elif outcome.applied:
            self.migrated.append(outcome.schema)
            if self.verbosity >= 2:
                self.write(
                    f"[{self.done}/{self.total}] {outcome.schema}: {len(outcome.applied)} migration(s) "
                    f"in {outcome.seconds:.2f}s"
                )
        else:
            self.current.append(outcome.schema)
            if self.verbosity >= 2:
                self.write(f"[{self.done}/{self.total}] {outcome.schema}: up to date")
        now = time.perf_counter()
        if self.verbosity >= 1 and (now - self.last >= self.every or self.done == self.total):
            self.last = now
            self.write(self.line())

    def line(self) -> str:
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = (self.total - self.done) / rate if rate > 0 else 0.0
        return (
            f"{self.done}/{self.total} schemas ({100 * self.done / max(self.total, 1):.0f}%), "
            f"{rate:.1f}/s, {elapsed:.0f}s elapsed, ETA {left:.0f}s, "
            f"{len(self.migrated)} migrated, {len(self.current)} up to date, {len(self.failed)} failed"
        )
