"""Workspaces (the tenants) and the host names that route to them. Public schema."""

from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.translation import gettext_lazy as _
from django_tenants.models import DomainMixin, TenantMixin
from django_tenants.utils import get_creation_fakes_migrations, get_tenant_base_schema, schema_exists

from apps.core import permissions, times


def validate_time_zone(value: str) -> None:
    """Named in migrations; the one rule is apps.core.times'."""
    times.validate_time_zone(value)


class Workspace(TenantMixin):
    name = models.CharField(_("name"), max_length=100)
    # What MCP clients, the server card and the consent page show (SPEC rule 2).
    brand_name = models.CharField(_("brand name"), max_length=100)
    # Keys of the optional areas this workspace uses; core areas are always on.
    installed_areas = ArrayField(
        models.CharField(max_length=64), default=list, blank=True, verbose_name=_("installed areas")
    )
    time_zone = models.CharField(
        _("time zone"), max_length=64, default="UTC", validators=[validate_time_zone]
    )
    # A fresh step-up code (apps.accounts.otp: checkOtpCode) before every HIGH RISK tool, and how
    # long one stays fresh for the person, credential and session that gave it.
    step_up_required = models.BooleanField(_("step-up before HIGH RISK tools"), default=False)
    step_up_minutes = models.PositiveSmallIntegerField(_("step-up lasts (minutes)"), default=15)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    # The PostgreSQL server its schema lives on (apps.core.servers: "default" is the primary), and
    # while it is being moved (apps.tenancy.moving), the one it goes to: its doors answer 503.
    database = models.CharField(_("database server"), max_length=63, default="default")
    moving_to = models.CharField(_("moving to"), max_length=63, blank=True, default="")

    auto_create_schema = True
    # Deleting the row never drops data by accident; `workspace_delete` drops the schema on purpose.
    auto_drop_schema = False

    class Meta:
        verbose_name = _("workspace")

    def create_schema(
        self, check_if_exists: bool = False, sync_schema: bool = True, verbosity: int = 1
    ) -> bool:
        """A copy of the migrated template schema: a spare one renamed if the pool has one
        (apps.tenancy.spares), else copied now (apps.tenancy.cloning), at a cost that does not grow
        with the number of workspaces; without a template, django-tenants migrates a new schema."""
        from apps.tenancy.cloning import clone_schema

        base = get_tenant_base_schema()
        if not (sync_schema and get_creation_fakes_migrations() and base and schema_exists(base)):
            return super().create_schema(check_if_exists, sync_schema, verbosity)
        if check_if_exists and schema_exists(self.schema_name):
            return False
        from apps.core import servers
        from apps.tenancy import spares

        # The spare copies are the primary's, and a creation there is what a fill waits for.
        primary = servers.current() == servers.PRIMARY
        if not (primary and spares.claim(self.schema_name)):
            clone_schema(base, self.schema_name)
        if primary and settings.ATRIUM_SPARE_SCHEMAS:
            transaction.on_commit(spares.request_fill)
        return True

    def save(self, *args: Any, **kwargs: Any) -> None:
        from apps.core import servers

        if self.pk is None or self.database == servers.current():
            super().save(*args, **kwargs)
            return
        # django-tenants makes the schema of an existing row when it finds none, and it looks on
        # this connection's server: this workspace's schema is on another (or being moved).
        self.auto_create_schema = False
        try:
            super().save(*args, **kwargs)
        finally:
            del self.auto_create_schema

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        unknown = sorted(set(self.installed_areas) - set(permissions.optional_area_keys()))
        if unknown:
            raise ValidationError(
                {"installed_areas": _("Unknown areas: %(areas)s") % {"areas": ", ".join(unknown)}}
            )

    @property
    def is_moving(self) -> bool:
        return bool(self.moving_to)

    @property
    def is_public(self) -> bool:
        return self.schema_name == "public"

    def has_area(self, key: str) -> bool:
        area = permissions.get_area(key)
        return area is not None and (area.core or key in self.installed_areas)


class Domain(DomainMixin):
    class Meta:
        verbose_name = _("domain")

    def __str__(self) -> str:
        return self.domain


class PendingWork(models.Model):
    """A workspace has background work of this kind waiting (apps.core.tasks.mark_pending): the
    sweeps that run every few seconds visit only the workspaces marked, so an idle workspace costs
    them nothing however many there are. `since` is the latest marking: a sweep removes the mark
    only if nobody marked it again while it worked."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="pending_work")
    kind = models.CharField(max_length=40)
    since = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "kind"], name="tenancy_pending_work_once")
        ]

    def __str__(self) -> str:
        return f"{self.kind} in {self.workspace_id}"


class SpareSchema(models.Model):
    """A copy of the template schema waiting to become a workspace's (apps.tenancy.spares)."""

    name = models.CharField(max_length=63, unique=True)
    # The template's applied migrations when it was copied: a spare of an older one is dropped.
    fingerprint = models.CharField(max_length=32)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return self.name
