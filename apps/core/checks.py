"""Start-up checks of the registries (django-oauth-toolkit's checks.py shows the way)."""

from typing import Any

from django.core import checks

from apps.core import permissions, privacy


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
