"""Spreadsheets read and written: CSV (UTF-8, with or without a byte-order mark; comma, semicolon or
tab) and XLSX (openpyxl). Knows no record and checks no permission.

What is written is safe to open in a spreadsheet program: a cell that starts with `=`, `+`, `-`,
`@`, a tab or a carriage return gets a leading apostrophe (OWASP's CSV injection advice), so that
no cell is read as a formula; every CSV cell is quoted, so that a program splitting on another
delimiter (`;` in many locales) does not make a cell of `=...` from the middle of one; a CSV
starts with a byte-order mark, so that Excel reads it as UTF-8. A CSV read back loses the one
apostrophe an export put before `=`, `+`, `-` or `@`: an export re-imports as it was. A number
given as one (a Decimal amount, an int) is written plainly ("-35.50"): a spreadsheet reads it as
the number it is, never as a formula.

An XLSX file is a zip: one that unpacks to more than MAX_XLSX_UNPACKED bytes is refused before it
is read. A file of either format is read row by row and refused as soon as a row has a value past
MAX_COLUMNS columns or past MAX_ROWS rows.
"""

import csv
import io
import zipfile
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

from apps.core.spreadsheets import guarded, unguarded
from apps.platform import errors

# Rows a file may hold (its header aside).
MAX_ROWS = 20_000
MAX_BYTES = 20 * 1024 * 1024
XLSX_MAGIC = b"PK\x03\x04"
# What the parts of an XLSX file may unpack to, together, and the columns a row may have.
MAX_XLSX_UNPACKED = 100 * 1024 * 1024
MAX_COLUMNS = 200


def read(data: bytes, *, name: str = "") -> tuple[list[str], list[list[str]]]:
    """The header and the rows of a CSV or XLSX file (XLSX: its first sheet), each cell as text
    with its spaces at both ends removed; rows left wholly empty are kept (empty), so that row
    numbers stay the file's. No header: ([], [])."""
    if len(data) > MAX_BYTES:
        raise errors.ImportFileTooLarge(megabytes=MAX_BYTES // (1024 * 1024))
    xlsx = data.startswith(XLSX_MAGIC) or name.lower().endswith(".xlsx")
    table = _xlsx(data) if xlsx else _csv(data)
    if not table or not any(cell for cell in table[0]):
        return [], []
    header, rows = table[0], table[1:]
    while rows and not any(rows[-1]):
        rows.pop()
    if len(rows) > MAX_ROWS:
        raise errors.ImportTooManyRows(most=MAX_ROWS)
    return header, rows


def _csv(data: bytes) -> list[list[str]]:
    """The rows of CSV text, read within the bounds an XLSX file is read in: a row with a value
    past MAX_COLUMNS columns, or a value past MAX_ROWS rows, is refused as soon as it is met, and
    wholly empty rows are kept only when a row with a value follows (a file of blank lines
    unpacks to no list per line)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise errors.ImportNotUtf8(byte=error.start) from None
    if "\x00" in text:
        raise errors.ImportBinary()
    first = text.split("\n", 1)[0]
    delimiter = max((",", ";", "\t"), key=first.count)
    table: list[list[str]] = []
    blank = 0  # empty rows read since the last row with a value
    try:
        for row in csv.reader(io.StringIO(text), delimiter=delimiter):
            cells = [unguarded(cell.strip()) for cell in row]
            while cells and not cells[-1]:
                cells.pop()
            if not cells:
                blank += 1
                continue
            if len(cells) > MAX_COLUMNS:
                raise errors.ImportTooManyColumns(most=MAX_COLUMNS)
            if len(table) + blank > MAX_ROWS:  # this row is past the header and MAX_ROWS rows
                raise errors.ImportTooManyRows(most=MAX_ROWS)
            table.extend([] for _empty in range(blank))
            blank = 0
            table.append(cells)
    except csv.Error as error:
        raise errors.ImportUnreadable(problem=str(error)) from None
    return table


def _unpacked_size(data: bytes) -> int:
    """What the parts of a zip unpack to, as its directory says (a part that unpacks to more than
    it says fails its check while read)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return sum(part.file_size for part in archive.infolist())
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise errors.ImportNotXlsx(reason=type(error).__name__) from None


def _xlsx(data: bytes) -> list[list[str]]:
    from openpyxl import load_workbook

    if _unpacked_size(data) > MAX_XLSX_UNPACKED:
        raise errors.ImportXlsxTooLarge(megabytes=MAX_XLSX_UNPACKED // (1024 * 1024))
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as error:  # openpyxl raises what its zip and XML readers raise
        raise errors.ImportNotXlsx(reason=type(error).__name__) from None
    formulas = None
    try:
        sheet = book.worksheets[0]
        if _has_formulas(data, sheet):
            formulas = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
        # Beside each row of values, its formulas (when the sheet has any): a formula whose value
        # no spreadsheet program computed (a workbook written by a program) reads as empty.
        written = formulas.worksheets[0].iter_rows(max_col=MAX_COLUMNS) if formulas else None
        table = []
        # One column more than allowed is read, to tell a row that has too many.
        for count, row in enumerate(sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS + 1)):
            if count > MAX_ROWS + 1:
                raise errors.ImportTooManyRows(most=MAX_ROWS)
            if len(row) > MAX_COLUMNS and row[MAX_COLUMNS] is not None:
                raise errors.ImportTooManyColumns(most=MAX_COLUMNS)
            if written is not None:
                _computed(row, next(written, ()))
            cells = [_text(value) for value in row[:MAX_COLUMNS]]
            while cells and not cells[-1]:
                cells.pop()  # the empty cells up to the column asked for
            table.append(cells)
        return table
    except zipfile.BadZipFile as error:
        raise errors.ImportNotXlsx(reason=type(error).__name__) from None
    finally:
        book.close()
        if formulas is not None:
            formulas.close()


def _has_formulas(data: bytes, sheet: Any) -> bool:
    """Whether the sheet's XML holds a formula (`<f>`): only then is it read a second time."""
    path = getattr(sheet, "_worksheet_path", "")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        try:
            with archive.open(path) as part:
                return b"<f" in part.read()
        except KeyError:
            return False


def _computed(values: Sequence[Any], cells: Sequence[Any]) -> None:
    """Refuses a row with a formula that has no value saved with it."""
    for value, cell in zip(values, cells, strict=False):
        if value is None and getattr(cell, "data_type", "") == "f":
            raise errors.ImportFormulaNotComputed(cell=cell.coordinate)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, Decimal):
        return format(value, "f")
    if hasattr(value, "date") and hasattr(value, "hour") and not (value.hour or value.minute or value.second):
        return value.date().isoformat()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value).strip()


def safe(value: Any) -> str:
    """A cell's text that no spreadsheet program reads as a formula. A number (an amount as a
    Decimal, a count) is written plainly, "-35.50" too: a spreadsheet reads it as the number."""
    text = _text(value)
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        return text
    return guarded(text)


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """UTF-8 with a byte-order mark, every cell made safe and quoted."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_ALL)
    writer.writerow([safe(cell) for cell in header])
    for row in rows:
        writer.writerow([safe(cell) for cell in row])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def xlsx_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]], *, title: str = "Export") -> bytes:
    """A workbook of one sheet, every cell written as text (never a formula, whatever it starts
    with: openpyxl would make `=...` one), characters XML cannot hold left out."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    book = Workbook(write_only=True)
    sheet = book.create_sheet(title=title[:31])

    def line(values: Sequence[Any]) -> list[Any]:
        cells = []
        for value in values:
            cell = WriteOnlyCell(sheet, value=ILLEGAL_CHARACTERS_RE.sub("", _text(value)))
            cell.data_type = "s"
            cells.append(cell)
        return cells

    sheet.append(line(header))
    for row in rows:
        sheet.append(line(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
