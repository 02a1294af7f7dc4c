"""`django.db.connection` as django-tenants' database backend makes it, for the type checker.

The default database's engine is django-tenants' (its DatabaseWrapper keeps the schema and the
tenant in use and switches between them); django-stubs types `django.db.connection` as Django's
BaseDatabaseWrapper, which has none of that. Code that reads or switches the schema imports
`connection` from here: the same object as `django.db.connection`, typed with what the backend adds.
"""

from typing import TYPE_CHECKING, Any, cast

from django.db import connection as _connection

if TYPE_CHECKING:
    from django.db.backends.base.base import BaseDatabaseWrapper

    class TenantDatabaseWrapper(BaseDatabaseWrapper):
        """django_tenants.postgresql_backend.base.DatabaseWrapper, as far as Atrium uses it."""

        schema_name: str
        tenant: Any

        def set_tenant(self, tenant: Any, include_public: bool = True) -> None: ...

        def set_schema_to_public(self) -> None: ...


connection = cast("TenantDatabaseWrapper", _connection)
