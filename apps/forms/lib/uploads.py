"""An upload to a form's file field: its type read from its first bytes (filetype), never from its
name or the browser's word, and its size held to the field's cap before anything is stored."""

from dataclasses import dataclass
from typing import Any

import filetype  # type: ignore[import-untyped]
from django.utils.translation import gettext as _


@dataclass(frozen=True)
class Checked:
    name: str
    data: bytes
    mime_type: str


class Refused(ValueError):
    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def sniffed(data: bytes) -> str:
    """The MIME type the bytes are, by their signature ("" when none is known)."""
    kind = filetype.guess(data[:8192])
    return str(kind.mime) if kind is not None else ""


def check(field: dict[str, Any], name: str, data: bytes) -> Checked:
    """The upload as the field takes it, or Refused saying why (empty, too large, wrong type)."""
    most = int(field.get("maxSizeMb", 5) * 1024 * 1024)
    if not data:
        raise Refused(_("the file is empty"))
    if len(data) > most:
        raise Refused(_("it is larger than {limit} MB").format(limit=field.get("maxSizeMb", 5)))
    kind = sniffed(data)
    if kind not in field.get("accept", []):
        raise Refused(
            _("its content is {kind}, and this field takes {types}").format(
                kind=kind or _("of no known type"), types=", ".join(field.get("accept", []))
            )
        )
    clean_name = "".join(char for char in name.replace("\\", "/").split("/")[-1] if char.isprintable())[:200]
    return Checked(clean_name.strip() or "upload", data, kind)
