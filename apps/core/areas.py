"""An area is a declaration: one module of its app (`area.py`) says everything the rest of the
service needs to know about it, in one call to `declare` (its title and description, the menu's
group its pages are in and its pages, its record kinds, its settings, its periodic tasks, its
sources of activity; apps/documents/area.py is a short one). The area's key is its app's label and
its permissions are the PermissionEnum of the app's `permissions` module.

From that the kit registers the area and its permissions (roles, the installed-areas choice),
its record kinds (apps.core.kinds), its pages in the menu (apps.core.navigation), its URLs (the
workspace URLconf includes `urls` of every area), its periodic tasks (merged into Celery beat's
schedule), the defaults of its settings (an environment file may still set them), its sources of
activity, and the catalogue finds its tools in its `tools` module. Adding an area is its app
and the line in TENANT_APPS that installs it; nothing else outside the app changes.
"""

import importlib.util
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, include, path

from apps.core import kinds as record_kinds
from apps.core import navigation, permissions
from apps.core.kinds import Kind, sources
from apps.core.kinds.attachments import SharedStore, use_store
from apps.core.navigation import Group, NavItem  # Group too: area modules name `areas.Group.SALES`
from apps.core.permissions import PermissionEnum


@dataclass(frozen=True)
class Periodic:
    """A task Celery beat runs (`schedule`: seconds, or a celery.schedules.crontab)."""

    task: str
    schedule: Any


@dataclass(frozen=True)
class Area:
    app: str  # the Django app label: apps.<app>
    key: str  # what permissions and Workspace.installed_areas name ("groupaccounts")
    title: Any
    description: Any
    permissions: type[PermissionEnum]
    # The menu's group of its pages (apps.core.navigation.Group lists them).
    group: Group
    nav: Sequence[NavItem] = ()
    # Its records a person links, watches or finds (apps.core.kinds); every other model of the
    # app that declares its access is named in `not_kinds` ("hr.TimeEntry": why it is not one).
    kinds: Sequence[Kind] = ()
    not_kinds: dict[str, str] = field(default_factory=dict)
    # URLs of its pages, included at the root of the workspace URLconf (None: none).
    urls: str | None = "urls"
    # The catalogue imports this module of the app for the area's tools.
    tools: str = "tools"
    periodic: dict[str, Periodic] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    event_sources: Sequence[sources.EventSource] = ()
    message_sources: Sequence[sources.MessageSource] = ()
    # The shared table of attachments (the Files area provides it).
    attachment_store: SharedStore | None = None
    # What SPEC.md 4.7 calls the area, when it differs from `title` ("Group Accounts").
    catalogue_title: str = ""
    # The words people use for the area's things, besides its title, space-separated ("diary
    # appointment meeting"): searchTools finds the area's tools by them (apps.catalogue.search).
    words: str = ""
    # Per tool of the area, the words people use for what it does ("recycle bin deleted files"),
    # for searchTools alone: they cost a client nothing.
    hints: dict[str, str] = field(default_factory=dict)
    # Per profile of the catalogue (apps.catalogue.profiles: "essentials", "sales"...), the names
    # of the area's tools it lists.
    profiles: dict[str, Sequence[str]] = field(default_factory=dict)
    # A core area is in every workspace (Platform: reference data, the workspace's own facts);
    # the others are installed per workspace (Workspace.installed_areas).
    core: bool = False

    @property
    def module(self) -> str:
        return f"apps.{self.app}"

    def submodule(self, name: str) -> str | None:
        """ "apps.<app>.<name>" when that module exists."""
        dotted = f"{self.module}.{name}"
        return dotted if importlib.util.find_spec(dotted) is not None else None

    def menu_item(self, item: NavItem) -> NavItem:
        """A page of the area as the menu has it: in the area's group unless it names another,
        and behind a permission of the area (its VIEW unless it names one), which a person holds
        only where the area is installed."""
        permission = item.permission or getattr(self.permissions, "VIEW", None)
        declared = permissions.get_permission(str(permission)) if permission else None
        if declared is None or declared.area != self.key:
            raise ValueError(f"area {self.key!r}: its menu link {item.key!r} needs a permission of the area")
        return replace(item, group=item.group or self.group, permission=permission)


_areas: dict[str, Area] = {}


def declare(*, title: Any, description: Any, group: Group, key: str = "", **fields: Any) -> Area:
    """Declares the area of the app whose `area` module calls it (apps.<app>.area): its key is
    the app's label unless given, its permissions the enum the app's `permissions` module
    registered for that key (autodiscovered first), `group` the menu's group of its pages."""
    app = sys._getframe(1).f_globals["__name__"].split(".")[1]
    key = key or app
    enum = permissions.enum_of(key)
    if enum is None:
        raise ValueError(
            f"area {key!r} has no permissions: declare its PermissionEnum in apps.{app}.permissions"
        )
    return register(
        Area(app=app, key=key, title=title, description=description, permissions=enum, group=group, **fields)
    )


def register(area: Area) -> Area:
    """Registers everything an area declares; called once, when its `area` module is imported."""
    existing = _areas.get(area.key)
    if existing is not None and existing is not area:
        raise ValueError(f"area {area.key!r} is declared twice")
    _areas[area.key] = area
    permissions.register_area(area.key, area.title, area.description, core=area.core)
    for kind in area.kinds:
        record_kinds.register(_with_area(kind, area.key))
    for item in area.nav:
        navigation.register(area.menu_item(item))
    for source in area.event_sources:
        sources.register_event_source(source)
    for message_source in area.message_sources:
        sources.register_message_source(message_source)
    if area.attachment_store is not None:
        use_store(area.attachment_store)
    for name, value in area.settings.items():
        # An environment file (config/settings/test.py) may have set it already.
        if not hasattr(settings, name):
            setattr(settings, name, value)
    return area


def _with_area(kind: Kind, key: str) -> Kind:
    return replace(kind, area=key) if kind.area != key else kind


def kind_problems() -> list[str]:
    """Every model that declares its access (or is read through `restrict`) is a record kind of
    its area or named in the area's `not_kinds` with why it is not one, so that a new model joins
    by declaration: what is amiss, a line each."""
    from django.apps import apps

    from apps.core.records import Access, RecordQuerySet

    problems = []
    by_app = {area.app: area for area in _areas.values()}
    declared = {
        model._meta.label: model
        for model in apps.get_models()
        if isinstance(getattr(model, "access", None), Access)
        or isinstance(model._default_manager.get_queryset(), RecordQuerySet)
    }
    for label, model in sorted(declared.items()):
        area = by_app.get(model._meta.app_label)
        not_one = area.not_kinds if area is not None else {}
        if record_kinds.kind_of_model(model) is None and label not in not_one:
            where = f"apps/{model._meta.app_label}/area.py"
            problems.append(
                f"{label} declares its access but is neither a record kind nor declared as not one: in "
                f'{where} add Kind(..., {label!r}, ...) to `kinds` or {label!r}: "why not" to `not_kinds`'
            )
    for area in all_areas():
        for label, reason in sorted(area.not_kinds.items()):
            named = declared.get(label)
            if named is None or named._meta.app_label != area.app:
                problems.append(
                    f"area {area.key!r} declares {label!r} not a kind, but it is no record of its app"
                )
            elif record_kinds.kind_of_model(named) is not None:
                problems.append(f"area {area.key!r} declares {label!r} not a kind, but it is one")
            elif not reason.strip():
                problems.append(f"area {area.key!r} declares {label!r} not a kind without saying why")
    return problems


def all_areas() -> list[Area]:
    return sorted(_areas.values(), key=lambda area: area.key)


def get(key: str) -> Area | None:
    return _areas.get(key)


def urlpatterns() -> list[URLPattern | URLResolver]:
    """The pages of every area, for the workspace URLconf."""
    found: list[URLPattern | URLResolver] = []
    for area in all_areas():
        module = area.submodule(area.urls) if area.urls else None
        if module is not None:
            found.append(path("", include(module)))
    return found


def beat_schedule() -> dict[str, dict[str, Any]]:
    """Celery beat's entries for the periodic tasks of every area."""
    return {
        name: {"task": periodic.task, "schedule": periodic.schedule}
        for area in all_areas()
        for name, periodic in sorted(area.periodic.items())
    }


def install_schedule(schedule: dict[str, Any]) -> None:
    """Adds the areas' periodic tasks to the beat schedule of the settings (in place: Celery
    reads that dict once it starts, after Django has loaded every app)."""
    for name, entry in beat_schedule().items():
        if name in schedule and schedule[name] != entry:
            raise ValueError(f"periodic task {name!r} is declared twice")
        schedule[name] = entry


def each_tools_module() -> list[str]:
    return [module for area in all_areas() if (module := area.submodule(area.tools)) is not None]
