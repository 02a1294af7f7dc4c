"""Reports as tables, and tables as CSV: the one shape the Accounting page shows a report in and
exports it from (CSV here, PDF in apps.accounting.lib.pdf).

CSV is UTF-8 with a byte order mark (so spreadsheet programs read accented names right), comma
separated, every line ended with CRLF. A text cell that a spreadsheet would take for a formula
(starting with =, +, -, @, a tab or a carriage return) is written with a ' before it (OWASP's
advice on CSV injection); amounts are written as plain numbers ("-120.00"), which no spreadsheet
runs.
"""

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from apps.core.spreadsheets import guarded

BOM = "\ufeff"


@dataclass
class Table:
    """One table of a report: a title, its column headings, its rows and its total rows."""

    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    foot: list[list[Any]] = field(default_factory=list)
    # The columns holding amounts (right-aligned on the page and in the PDF).
    numeric: frozenset[int] = frozenset()


def cell(value: Any) -> str:
    """A value as a CSV cell: amounts as plain numbers, dates in ISO 8601, text made safe."""
    if value is None:
        return ""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | date):
        return value.isoformat() if isinstance(value, date) else str(value)
    return guarded(str(value))


def csv_bytes(tables: Sequence[Table], *, heading: Sequence[str] = ()) -> bytes:
    """The tables one after the other (each its title, its headings, its rows and totals), a
    blank line between them, after the `heading` lines (the report's name and period)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for line in heading:
        writer.writerow([cell(line)])
    for index, table in enumerate(tables):
        if index or heading:
            writer.writerow([])
        writer.writerow([cell(table.title)])
        writer.writerow([cell(name) for name in table.columns])
        for row in [*table.rows, *table.foot]:
            writer.writerow([cell(value) for value in row])
    return (BOM + buffer.getvalue()).encode("utf-8")
