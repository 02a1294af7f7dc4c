"""Small rules that every area's services apply to their records the same way."""

from collections.abc import Callable, Iterable
from typing import Any

from apps.core.errors import ValidationFailed


def save_changes(record: Any, names: Iterable[str], apply: Callable[[], None]) -> list[str]:
    """Runs `apply` (which sets fields on `record`), saves the record if any of `names` changed,
    and returns the ones that did, in order."""
    names = list(names)
    before = {name: getattr(record, name) for name in names}
    apply()
    changed = [name for name in names if getattr(record, name) != before[name]]
    if changed:
        record.save()
    return changed


def unique_name(record: Any, value: Any, *, what: str, limit: int, field: str = "name") -> str:
    """`value` with its spaces tidied, required, and not the name of another live record of the
    same model (compared without case; soft-deleted records do not count)."""
    name = " ".join(str(value or "").split())
    if not name:
        raise ValidationFailed(f"{field}: is required and cannot be empty.", details={field: ["is required"]})
    if len(name) > limit:
        raise ValidationFailed(
            f"{field}: at most {limit} characters.", details={field: [f"at most {limit} characters"]}
        )
    taken = (
        type(record)
        .objects.filter(**{f"{field}__iexact": name, "deleted_at__isnull": True})
        .exclude(pk=record.pk)
    )
    if taken.exists():
        message = f"there is already {what} called {name!r}"
        raise ValidationFailed(f"{field}: {message}.", details={field: [message]})
    return name
