# The two abstract models of django-tenants (4.0), which ships no types: stubs, so that
# django-stubs sees apps.tenancy's Workspace and Domain as the models they are.
from typing import Any

from django.db import models

class TenantMixin(models.Model):
    auto_drop_schema: bool
    auto_create_schema: bool
    schema_name = models.CharField(max_length=63, unique=True, db_index=True)
    domain_url: str | None
    class Meta:
        abstract = True

    def save(self, verbosity: int = 1, *args: Any, **kwargs: Any) -> None: ...
    # As the library declares it (its first argument is not `using`).
    def delete(  # type: ignore[override]
        self, force_drop: bool = False, *args: Any, **kwargs: Any
    ) -> tuple[int, dict[str, int]]: ...
    def activate(self) -> None: ...
    @classmethod
    def deactivate(cls) -> None: ...
    def serializable_fields(self) -> tuple[str, ...]: ...
    def pre_drop(self) -> None: ...
    def create_schema(
        self, check_if_exists: bool = False, sync_schema: bool = True, verbosity: int = 1
    ) -> bool: ...
    def get_primary_domain(self) -> Any: ...
    def reverse(self, request: Any, view_name: str) -> str: ...
    def get_tenant_type(self) -> str: ...
    def get_base_schema(self) -> str: ...

class DomainMixin(models.Model):
    domain = models.CharField(max_length=253, unique=True, db_index=True)
    tenant: Any
    is_primary = models.BooleanField(default=True, db_index=True)
    class Meta:
        abstract = True
