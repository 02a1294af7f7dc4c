"""Extension Builder reads: the projects and builds an actor may see, the data shapes an extension
may ask for (the kit's record kinds), the locales, and the last approved version of a project."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from babel import Locale, localedata
from django.conf import settings
from django.db.models import Count, Q, QuerySet

from apps.core import kinds
from apps.core.actors import Actor
from apps.extensions.lib import bundle
from apps.extensions.models import Build, Project, Upload


def shapes() -> list[kinds.Kind]:
    """The record kinds installed in this workspace: what an extension's scopes name."""
    return kinds.kinds()


def shape_keys() -> set[str]:
    return {kind.key for kind in shapes()}


def shape_fields(kind: kinds.Kind) -> list[str]:
    """A kind's own fields an extension may read: none its access keeps for some readers."""
    model = kind.model_class
    access = getattr(model, "access", None)
    hidden = set(getattr(access, "fields", None) or {})
    return [
        field.name
        for field in model._meta.concrete_fields
        if field.name not in hidden and not field.name.endswith("_by") and field.name != "deleted_at"
    ][:40]


@lru_cache(maxsize=1)
def all_locales() -> tuple[tuple[str, str], ...]:
    """Every locale the CLDR (through Babel) knows, as BCP 47 tags with their English names."""
    found = []
    for identifier in localedata.locale_identifiers():
        tag = identifier.replace("_", "-")
        if bundle.valid_tag(tag):
            found.append((tag, Locale.parse(identifier).get_display_name("en") or tag))
    return tuple(sorted(found))


def locales(query: str = "") -> list[tuple[str, str]]:
    words = query.lower().split()
    return [
        (tag, name)
        for tag, name in all_locales()
        if all(word in tag.lower() or word in name.lower() for word in words)
    ]


def page_languages() -> list[str]:
    """The languages the workspace's own pages speak."""
    return [code for code, _name in settings.LANGUAGES]


def last_version(project: Project) -> str | None:
    """The highest version of the project's approved or published builds."""
    versions = Build.objects.filter(
        project=project, status__in=(Build.Status.APPROVED, Build.Status.PUBLISHED)
    ).values_list("version", flat=True)
    keyed = [(bundle.version_key(version), version) for version in versions]
    known = [(key, version) for key, version in keyed if key is not None]
    return max(known)[1] if known else None


def projects(actor: Actor) -> QuerySet[Project]:
    return Project.objects.restrict(actor).select_related("owner")


def builds(actor: Actor, *, project: Project | None = None, status: str | None = None) -> QuerySet[Build]:
    rows = Build.objects.restrict(actor).select_related("project")
    if project is not None:
        rows = rows.filter(project=project)
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("-created_at", "-id")


def open_uploads(actor: Actor, project: Project) -> QuerySet[Upload]:
    return Upload.objects.restrict(actor).filter(project=project, status=Upload.Status.OPEN)


def overview(actor: Actor) -> dict[str, Any]:
    visible = projects(actor)
    counts = Build.objects.restrict(actor).aggregate(
        **{status: Count("id", filter=Q(status=status)) for status in Build.Status.values}
    )
    return {"projects": visible.count(), "builds": counts}
