"""The operators' admin site (AtriumAdminSite: the host's brand, only the models its schema
holds), and what the areas' pages in it share (each area's `admin.py` registers its own).

inlines = [inline(FileShare, "user", "shared_by")]
admin.site.register(Folder, FolderAdmin)
"""

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.db import models
from django.http import HttpRequest
from django_tenants.utils import get_app_label, get_public_schema_name

SERVICE_NAME = "Atrium"


def inline(model: type[models.Model], *raw_ids: str) -> Any:
    """A table of `model`'s rows inside their record's page, people and records by id."""
    return type(
        f"{model.__name__}Inline",
        (admin.TabularInline,),
        {"model": model, "extra": 0, "raw_id_fields": raw_ids},
    )


class FolderAdmin(admin.ModelAdmin):
    """A folder of an area's tree (apps.core.folders)."""

    list_display = ("name", "parent", "created_by", "updated_at", "deleted_at")
    list_filter = ("deleted_at",)
    search_fields = ("name",)
    raw_id_fields = ("parent", "trashed_with", "created_by", "deleted_by")


class AtriumAdminSite(admin.AdminSite):
    """The Django admin under the brand of the host it answers on (the workspace's brand name on a
    workspace host, the service's on the public site), holding only the models whose tables the
    schema it serves has: a workspace's records are not in the public schema, nor the public
    schema's in a workspace, and a section that could only fail is not shown."""

    def __init__(self, *, schema_apps: list[str], name: str = "admin") -> None:
        super().__init__(name=name)
        self.app_labels = {get_app_label(app) for app in schema_apps}

    def register_from(self, site: admin.AdminSite) -> None:
        """Takes `site`'s registrations of this schema's models, each with a fresh ModelAdmin of
        its class (bound to this site: its pages get this site's brand and links)."""
        for model, model_admin in site._registry.items():
            if model._meta.app_label in self.app_labels:
                self.register(model, type(model_admin))

    @staticmethod
    def workspace(request: HttpRequest) -> Any:
        """The workspace of the request's host; None on the public site."""
        workspace = getattr(request, "tenant", None)
        if workspace is None or workspace.schema_name == get_public_schema_name():
            return None
        return workspace

    def brand(self, request: HttpRequest) -> str:
        workspace = self.workspace(request)
        return SERVICE_NAME if workspace is None else workspace.brand_name or workspace.name

    def each_context(self, request: HttpRequest) -> dict[str, Any]:
        context = super().each_context(request)
        brand = self.brand(request)
        context.update(
            site_header=brand,
            site_title=f"{brand} admin",
            # The public site has no pages but this admin ("View site" would lead back here).
            site_url=None if self.workspace(request) is None else "/",
        )
        return context

    def index(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        title = {"title": f"{self.brand(request)} administration"}
        return super().index(request, extra_context={**title, **(extra_context or {})})


def public_admin_site() -> AtriumAdminSite:
    """The operators' admin of the public site (config/urls_public.py): every registration of the
    apps' `admin.py` modules whose tables live in the public schema."""
    site = AtriumAdminSite(schema_apps=settings.SHARED_APPS)
    site.register_from(admin.site)
    return site
