"""Attendee imports in two steps. `validate` reads a CSV or XLSX file of the Files area (the csv
module; openpyxl for XLSX), checks every row and finds duplicates (within the file and against
the event's attendees), and gives a handle: a signed token naming the event, the file and its
SHA-256, the person who validated, so validating writes nothing. `commit` (apps.events.services)
takes the handle, reads the same file again and creates the attendees once: a second commit with
the same handle answers the first one's result.
"""

import csv
import hashlib
import io
import zipfile
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

from apps.events import errors
from apps.events.models import Attendee

SALT = "atrium.events.import"
MAX_AGE = 24 * 3600
MAX_ROWS = 5000
# Header names people use, by the field each fills.
COLUMNS = {
    "name": ("name", "full name", "attendee", "attendee name"),
    "first_name": ("first name", "firstname", "given name"),
    "last_name": ("last name", "lastname", "surname", "family name"),
    "email": ("email", "e-mail", "email address", "e-mail address", "mail"),
    "organisation": ("organisation", "organization", "company"),
    "type": ("type", "ticket", "ticket type", "attendee type"),
    "status": ("status",),
    "dietary": ("dietary", "diet", "dietary needs"),
    "accessibility": ("accessibility", "access needs", "accessibility needs"),
}
STATUSES = (Attendee.Status.INVITED, Attendee.Status.REGISTERED)
# (column, as a problem names it, longest): the bounds of the attendee's fields.
LIMITED = (
    ("organisation", "organisation", 200),
    ("type", "type", 40),
    ("dietary", "dietary need", 200),
    ("accessibility", "accessibility need", 200),
)
NEEDS = ("dietary", "accessibility")


@dataclass
class Row:
    line: int
    name: str
    email: str
    organisation: str = ""
    type: str = "attendee"
    status: str = Attendee.Status.INVITED
    dietary: str = ""
    accessibility: str = ""


@dataclass
class Checked:
    rows: list[Row] = field(default_factory=list)  # valid, each e-mail once, not yet an attendee
    errors: list[dict[str, Any]] = field(default_factory=list)  # line, problem
    duplicates: list[dict[str, Any]] = field(default_factory=list)  # line, email, of
    total: int = 0
    ignored_columns: list[str] = field(default_factory=list)


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def table_of(content: bytes, name: str) -> list[list[str]]:
    """The cells of the file's first sheet (XLSX) or its rows (CSV), as text; ImportUnreadable
    when it is neither."""
    lowered = name.lower()
    if lowered.endswith(".xlsx") or content[:4] == b"PK\x03\x04":
        return _xlsx(content, name)
    if lowered.endswith((".csv", ".txt")) or not lowered.rpartition(".")[1]:
        return _csv(content, name)
    raise errors.NotCsvOrXlsx(name=name, details={"fileId": ["not CSV or XLSX"]})


def _csv(content: bytes, name: str) -> list[list[str]]:
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = content.decode("cp1252")
        except UnicodeDecodeError:
            raise errors.NotText(name=name, details={"fileId": ["not readable as text"]}) from None
    if "\x00" in text:
        raise errors.BinaryNotCsv(name=name, details={"fileId": ["binary"]})
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        return [[cell.strip() for cell in row] for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as error:
        raise errors.BadCsv(name=name, problem=error, details={"fileId": ["not CSV"]}) from None


def _xlsx(content: bytes, name: str) -> list[list[str]]:
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(content), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as error:
        raise errors.BadXlsx(name=name, kind=type(error).__name__, details={"fileId": ["not XLSX"]}) from None
    try:
        sheet = book.worksheets[0]
        return [
            ["" if cell is None else str(cell).strip() for cell in row]
            for row in sheet.iter_rows(values_only=True)
        ]
    finally:
        book.close()


def _columns(header: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, title in enumerate(header):
        key = " ".join(title.lower().replace("_", " ").split())
        for column, names in COLUMNS.items():
            if key in names and column not in found:
                found[column] = index
    return found


def check(table: list[list[str]], *, existing: set[str], with_needs: bool) -> Checked:
    """Every row of the table checked: the valid ones, the errors by line, the duplicates."""
    rows = [row for row in table if any(cell for cell in row)]
    if not rows:
        raise errors.NoRows(details={"fileId": ["empty"]})
    columns = _columns(rows[0])
    if "email" not in columns or not ({"name", "first_name", "last_name"} & set(columns)):
        raise errors.NoHeader(
            found=", ".join(rows[0][:12]) or _("nothing"), details={"fileId": ["no header"]}
        )
    if len(rows) - 1 > MAX_ROWS:
        raise errors.TooManyRows(rows=len(rows) - 1, most=MAX_ROWS, details={"fileId": ["too many rows"]})
    result = Checked(total=len(rows) - 1)
    if not with_needs:
        result.ignored_columns = [c for c in ("dietary", "accessibility") if c in columns]
    first_line: dict[str, int] = {}
    for line, cells in enumerate(table, start=1):
        if line == 1 or not any(cells):
            continue

        def cell(column: str, cells: list[str] = cells) -> str:
            index = columns.get(column)
            return cells[index] if index is not None and index < len(cells) else ""

        name = cell("name") or " ".join(part for part in (cell("first_name"), cell("last_name")) if part)
        name, email = " ".join(name.split()), cell("email").lower()
        problem = _problem(name, email, cell, with_needs=with_needs)
        if problem:
            result.errors.append({"line": line, "problem": problem})
            continue
        if email in first_line or email in existing:
            of = f"line {first_line[email]}" if email in first_line else "an attendee already"
            result.duplicates.append({"line": line, "email": email, "of": of})
            continue
        first_line[email] = line
        result.rows.append(
            Row(
                line=line,
                name=name,
                email=email,
                organisation=cell("organisation"),
                type=(cell("type") or "attendee").lower(),
                status=(cell("status") or Attendee.Status.INVITED).lower(),
                dietary=cell("dietary") if with_needs else "",
                accessibility=cell("accessibility") if with_needs else "",
            )
        )
    return result


def _problem(name: str, email: str, cell: Any, *, with_needs: bool) -> str:
    if not email:
        return "no e-mail address"
    try:
        validate_email(email)
    except ValidationError:
        return f"{email!r} is not an e-mail address"
    if len(email) > 254:
        return "the e-mail address is longer than 254 characters"
    if not name:
        return "no name"
    if len(name) > 200:
        return "the name is longer than 200 characters"
    # What an attendee keeps of each cell, as addEventAttendee takes it: longer is refused, not cut.
    for column, label, limit in LIMITED:
        if column in NEEDS and not with_needs:
            continue  # left out (ignoredColumns)
        if len(cell(column)) > limit:
            return f"the {label} is longer than {limit} characters"
    status = (cell("status") or Attendee.Status.INVITED).lower()
    if status not in STATUSES:
        return f"status {status!r}: an import adds people as invited or registered"
    return ""
