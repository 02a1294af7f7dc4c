"""Spreadsheets written safe and read back as they were (apps.platform.tables)."""

import csv
import io
import zipfile
from decimal import Decimal

import pytest
from openpyxl import Workbook

from apps.core import spreadsheets
from apps.platform import errors, tables


def test_every_csv_cell_is_quoted_so_no_other_delimiter_cuts_a_formula_out_of_a_cell():
    data = tables.csv_bytes(["name", "note"], [["x;=cmd|' /C calc'!A0", "=1+2"]])
    text = data.decode("utf-8-sig")

    assert text.splitlines()[1] == '"x;=cmd|\' /C calc\'!A0","\'=1+2"'
    # A program splitting on semicolons keeps the quoted cell whole: no cell starts a formula.
    for row in csv.reader(io.StringIO(text), delimiter=";"):
        assert not any(cell.startswith(spreadsheets.FORMULA_STARTS) for cell in row)


def test_an_export_reads_back_as_it_was():
    values = ["=1+2", "+cmd", "-2+3", "@sum", "'kept as typed", "plain", "it's", "'"]
    data = tables.csv_bytes(["value"], [[value] for value in values])

    header, rows = tables.read(data)

    assert header == ["value"]
    assert [row[0] for row in rows] == values


def test_a_number_is_written_plainly_and_text_that_looks_like_one_is_neutralised():
    data = tables.csv_bytes(
        ["amount", "count", "text"], [[Decimal("-35.50"), -2, "-35.50"], [Decimal("1E+2"), 0, ""]]
    )

    lines = data.decode("utf-8-sig").splitlines()

    # An amount read as the number it is; the same characters given as text, still neutralised.
    assert lines[1:] == ['"-35.50","-2","\'-35.50"', '"100","0",""']


def _xlsx(rows):
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_row_with_too_many_columns_is_refused():
    data = _xlsx([["email"], ["a@b.example", *["x"] * tables.MAX_COLUMNS]])

    with pytest.raises(errors.ImportTooManyColumns):
        tables.read(data, name="wide.xlsx")
    # As many as allowed are read.
    header, rows = tables.read(_xlsx([["email"], ["a@b.example", *["x"] * (tables.MAX_COLUMNS - 1)]]))
    assert header == ["email"] and len(rows[0]) == tables.MAX_COLUMNS


def zip_bomb() -> bytes:
    """A real workbook with one more part that unpacks to just over the limit (zeros: ~100 KB packed)."""
    out = io.BytesIO()
    workbook = io.BytesIO(_xlsx([["email"], ["a@b.example"]]))
    with zipfile.ZipFile(workbook) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for part in source.infolist():
            bomb.writestr(part, source.read(part))
        bomb.writestr("xl/media/padding.bin", bytes(tables.MAX_XLSX_UNPACKED + 1))
    return out.getvalue()


def test_a_workbook_that_unpacks_to_too_much_is_refused_before_it_is_read():
    data = zip_bomb()
    assert len(data) < 1024 * 1024

    with pytest.raises(errors.ImportXlsxTooLarge):
        tables.read(data, name="bomb.xlsx")
