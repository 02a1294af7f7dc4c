"""The Departments area's public module: what other areas may use of it (docs/area-kit.md,
"Cross-area services"). Nothing else of apps.departments is theirs to import.

`visible_department(actor, department_id)`: one the actor may see, or None; `not_found(
department_id)`: the error for an id the actor may not see; `department_named(actor, name)`:
the one of that name the actor may see, or None.
`Department` is here for foreign keys' and answers' types.
"""

from apps.core.actors import Actor
from apps.core.errors import AppError
from apps.departments.models import Department

__all__ = ["Department", "department_named", "not_found", "visible_department"]


def visible_department(actor: Actor, department_id: int) -> Department | None:
    return Department.objects.restrict(actor).filter(pk=department_id).first()


def not_found(department_id: int) -> AppError:
    return Department.access.not_found(Department, department_id)


def department_named(actor: Actor, name: str) -> Department | None:
    """The live department the actor may see called `name` (without case; names are unique), or
    None: a department given by its name, as a spreadsheet gives it."""
    wanted = " ".join((name or "").split())
    return Department.objects.restrict(actor).filter(name__iexact=wanted).first() if wanted else None
