"""What an area may do with one person's data across the workspace (SPEC 10.3), without importing
the app that runs it: apps.datarights fills this interface from its `AppConfig.ready()`, and the
Platform area's tools examine and erase a person's data through it.

Every call works in the active workspace (the schema the connection uses); `email` names the person,
someone of the workspace or someone only mentioned in its records.
"""

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class PersonalExport:
    """The person's data as the data-rights export writes it: a JSON document, or a zip holding
    that document and the person's files."""

    filename: str
    content_type: str
    content: bytes
    # Per kind ("<app>.<model>"), the records the export holds, as it wrote them.
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    files: int = 0


class PersonalData(Protocol):
    def records(self, *, email: str) -> dict[str, list[dict[str, Any]]]:
        """What the workspace holds about the person, per kind (kinds with nothing left out)."""
        ...

    def vetoes(self, *, email: str) -> list[str]:
        """Why the person may not be erased (the last owner, a legal hold); empty: they may."""
        ...

    def export(self, *, email: str, performed_by: str) -> PersonalExport:
        """The whole export of the person's data (recorded as a data-rights operation)."""
        ...

    def erase(self, *, email: str, performed_by: str) -> dict[str, int]:
        """Erases the person's data in every area: the records erased or anonymised per kind.
        Refused (an error naming the reasons) when `vetoes` gives any."""
        ...


_personal_data: PersonalData | None = None


def register(implementation: PersonalData) -> None:
    global _personal_data
    _personal_data = implementation


def personal_data() -> PersonalData:
    if _personal_data is None:
        raise LookupError("no personal-data export is installed (apps.datarights registers it)")
    return _personal_data
