"""`django.db.connection` as django-tenants' database backend makes it, for the type checker; and
what a database error may tell a log line (`database_failure`).

The default database's engine is django-tenants' (its DatabaseWrapper keeps the schema and the
tenant in use and switches between them); django-stubs types `django.db.connection` as Django's
BaseDatabaseWrapper, which has none of that. Code that reads or switches the schema imports
`connection` from here: the same object as `django.db.connection`, typed with what the backend adds.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from django.db import DEFAULT_DB_ALIAS, connections
from django.db import connection as _connection

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

    class TenantDatabaseWrapper(BaseDatabaseWrapper):
        """django_tenants.postgresql_backend.base.DatabaseWrapper, as far as Atrium uses it."""

        schema_name: str
        tenant: Any

        def set_tenant(self, tenant: Any, include_public: bool = True) -> None: ...

        def set_schema(self, schema_name: str, include_public: bool = True) -> None: ...

        def set_schema_to_public(self) -> None: ...


connection = cast("TenantDatabaseWrapper", _connection)


def this_connection() -> "TenantDatabaseWrapper":
    """This thread's (or greenlet's) default connection object itself: code that reads it several
    times in a row looks it up once, where `connection` looks it up again at every attribute."""
    return cast("TenantDatabaseWrapper", connections[DEFAULT_DB_ALIAS])


# --- what a database error may say about itself ----------------------------------------------------

# SQLSTATE classes (PostgreSQL, Appendix A): 23 a constraint refused the row, 40 the transaction
# lost to a concurrent one (a serialization failure, a deadlock) and may simply be run again.
# Of class 23, only unique and exclusion violations are races (a concurrent insert of the same
# key); NOT NULL, foreign key and check violations say what this write itself got wrong.
UNIQUE_VIOLATION = "23505"
EXCLUSION_VIOLATION = "23P01"
CONCURRENCY_CLASS = "40"


@dataclass(frozen=True)
class DatabaseFailure:
    """The parts of a database error that name no data: its class, PostgreSQL's SQLSTATE and the
    constraint it broke. Its message is left out on purpose: PostgreSQL quotes the row's values in
    DETAIL ("Key (email)=(...) already exists"), parts of the statement in LINE and CONTEXT, and
    with client-side binding the statement carries every parameter."""

    kind: str
    sqlstate: str = ""
    constraint: str = ""

    @property
    def is_conflict(self) -> bool:
        """Refused because of what a concurrent transaction wrote: a unique or exclusion
        constraint, a serialization failure or a deadlock. Running it again sees the other write.
        The one rule of what a lost race is: every door answers it as a conflict (SPEC 7.1's 409
        CONFLICT, a tool's CONFLICT error), never as an outage or a failure of the server."""
        return self.sqlstate in {UNIQUE_VIOLATION, EXCLUSION_VIOLATION} or self.is_retryable

    @property
    def is_retryable(self) -> bool:
        """PostgreSQL gave the transaction up (a deadlock's victim, a serialization failure):
        nothing of it is left, and running it once more at once usually succeeds."""
        return self.sqlstate.startswith(CONCURRENCY_CLASS)

    def __str__(self) -> str:
        details = [f"SQLSTATE {self.sqlstate}"] if self.sqlstate else []
        if self.constraint:
            details.append(f"constraint {self.constraint}")
        return f"{self.kind} ({', '.join(details)})" if details else self.kind


def database_failure(error: BaseException) -> DatabaseFailure | None:
    """What `error` may say in a log line when it is a database error (Django's, or the driver's
    that Django's wraps as its cause); None for any other error."""
    import psycopg
    from django.db import Error as DjangoDatabaseError

    if not isinstance(error, DjangoDatabaseError | psycopg.Error):
        return None
    driver: BaseException | None = error
    for _step in range(5):  # Django's error has the driver's as its cause
        if driver is None or isinstance(driver, psycopg.Error):
            break
        driver = driver.__cause__ or driver.__context__
    sqlstate = constraint = ""
    if isinstance(driver, psycopg.Error):
        sqlstate = driver.sqlstate or ""
        constraint = driver.diag.constraint_name or ""
    return DatabaseFailure(kind=type(error).__name__, sqlstate=sqlstate, constraint=constraint)
