"""What the areas' pages in the operators' admin share (each area's `admin.py` registers its own).

inlines = [inline(FileShare, "user", "shared_by")]
admin.site.register(Folder, FolderAdmin)
"""

from typing import Any

from django.contrib import admin
from django.db import models


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
