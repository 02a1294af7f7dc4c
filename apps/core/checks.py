"""Start-up checks of the registries (django-oauth-toolkit's checks.py shows the way)."""

from typing import Any

from django.core import checks

from apps.core import areas, errors, kinds, permissions, privacy


@checks.register()
def check_permissions(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    problems: list[checks.CheckMessage] = []
    for member in permissions.all_permissions():
        area, _, action = member.value.partition(".")
        if not action:
            problems.append(
                checks.Error(f"permission {member.value!r} is not '<area>.<action>'", id="atrium.E001")
            )
        elif permissions.get_area(area) is None:
            problems.append(
                checks.Error(
                    f"permission {member.value!r} names an unregistered area",
                    hint="Declare the area in its app's area module (apps.core.areas).",
                    id="atrium.E002",
                )
            )
    return problems


@checks.register()
def check_personal_data(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every model of the project's apps is registered for export and erasure, or declared as
    holding no personal data (SPEC 10.3; docs/privacy.md)."""
    return privacy.check_coverage()


@checks.register()
def check_record_access(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every model read through the kit's access model declares who may see it: an `Access`
    with its area's permissions (an undeclared one would let nobody see anything, silently)."""
    from django.apps import apps

    from apps.core.records import RecordQuerySet

    problems: list[checks.CheckMessage] = []
    for model in apps.get_models():
        manager = model._default_manager
        if not isinstance(manager.get_queryset(), RecordQuerySet):
            continue
        access = getattr(model, "access", None)
        if access is None or access.permission("view") is None:
            problems.append(
                checks.Error(
                    f"{model._meta.label} is read through restrict() but declares no access",
                    hint="Give it `access = Access(<the area's PermissionEnum>, ...)` (apps.core.records).",
                    obj=model,
                    id="atrium.E003",
                )
            )
    return problems


@checks.register()
def check_record_kinds(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """Every declared record kind names a model that exists, in an area that is declared, and
    fields its search can read; every record with an access declaration is a kind or declared as
    not one (apps.core.areas.kind_problems)."""
    from django.apps import apps

    from apps.core.kinds import finding

    problems: list[checks.CheckMessage] = []
    for kind in kinds.all_kinds():
        if permissions.get_area(kind.area) is None:
            problems.append(
                checks.Error(f"record kind {kind.key!r} belongs to no declared area", id="atrium.E005")
            )
        try:
            apps.get_model(kind.model)
        except (LookupError, ValueError):
            problems.append(
                checks.Error(f"record kind {kind.key!r} names no model {kind.model!r}", id="atrium.E004")
            )
            continue
        problems += [checks.Error(problem, id="atrium.E007") for problem in finding.search_problems(kind)]
    problems += [checks.Error(problem, id="atrium.E006") for problem in areas.kind_problems()]
    return problems


@checks.register()
def check_errors(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """The registry of error codes: each declared once, with a message (apps.core.errors)."""
    return errors.check_declarations(errors.error_classes())
