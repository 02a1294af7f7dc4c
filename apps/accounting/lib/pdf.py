"""Invoices, credit notes and statements as PDF, with ReportLab (the project's PDF engine, as
Documents' export uses it), in Bitstream Vera (shipped with ReportLab) so accented names print."""

import io
from collections.abc import Sequence
from datetime import date
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from apps.core.clean import plain
from apps.core.pdf import FONT, vera


def _style(size: float = 10, bold: bool = False) -> ParagraphStyle:
    vera()
    return ParagraphStyle("p", fontName=f"{FONT}-Bold" if bold else FONT, fontSize=size, leading=size * 1.35)


def _table(rows: Sequence[Sequence[Any]], widths: Sequence[float]) -> Table:
    table = Table(
        [[Paragraph(escape(str(cell)), _style(9)) for cell in row] for row in rows], colWidths=widths
    )
    table.setStyle(
        TableStyle(
            [
                ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("ALIGN", (1, 0), (-1, -1), "RIGHT"),
            ]
        )
    )
    return table


def _render(title: str, story: list[Any]) -> bytes:
    vera()
    buffer = io.BytesIO()
    document = SimpleDocTemplate(buffer, pagesize=A4, title=title, leftMargin=18 * mm, rightMargin=18 * mm)
    document.build(story)
    return buffer.getvalue()


def document_pdf(document: Any, *, seller: str) -> bytes:
    """A sales document: seller, customer, number and dates, lines, tax per type, totals."""
    kind = document.get_kind_display().capitalize()
    lines = document.lines.select_related("tax_type")
    story: list[Any] = [
        Paragraph(escape(seller), _style(14, bold=True)),
        Spacer(1, 4 * mm),
        Paragraph(escape(f"{kind} {document.number}"), _style(12, bold=True)),
        Paragraph(
            escape(
                f"Issued {document.issue_date.isoformat()}"
                + (f", due {document.due_date.isoformat()}" if document.due_date else "")
            ),
            _style(),
        ),
        Spacer(1, 4 * mm),
        Paragraph(escape(document.customer_name), _style(bold=True)),
        *[Paragraph(escape(part), _style()) for part in document.customer_address.splitlines() if part],
        *(
            [Paragraph(escape(f"VAT {document.customer_vat_number}"), _style())]
            if document.customer_vat_number
            else []
        ),
        Spacer(1, 6 * mm),
        _table(
            [["Description", "Quantity", "Unit price", "Tax", f"Net {document.currency}"]]
            + [
                [
                    line.description,
                    plain(line.quantity),
                    plain(line.unit_price),
                    line.tax_type.code,
                    line.net,
                ]
                for line in lines
            ],
            [80 * mm, 20 * mm, 25 * mm, 25 * mm, 24 * mm],
        ),
        Spacer(1, 4 * mm),
        _table(
            [
                ["", ""],
                ["Net", document.net],
                ["Tax", document.tax],
                ["Total", document.total],
                ["Paid", document.amount_paid],
                [f"Due {document.currency}", document.amount_due],
            ],
            [120 * mm, 54 * mm],
        ),
    ]
    if document.reference:
        story.insert(4, Paragraph(escape(f"Reference {document.reference}"), _style()))
    return _render(f"{kind} {document.number}", story)


def statement_pdf(
    *,
    seller: str,
    customer: str,
    currency: str,
    on: date,
    rows: Sequence[Sequence[Any]],
    ageing: Sequence[tuple[str, Any]],
) -> bytes:
    """A customer's statement: open invoices and the balance aged into current/30/60/90+."""
    story: list[Any] = [
        Paragraph(escape(seller), _style(14, bold=True)),
        Spacer(1, 4 * mm),
        Paragraph(
            escape(f"Statement for {customer} at {on.isoformat()} ({currency})"), _style(12, bold=True)
        ),
        Spacer(1, 6 * mm),
        _table(
            [["Number", "Issued", "Due", "Total", "Due now"], *rows],
            [40 * mm, 30 * mm, 30 * mm, 37 * mm, 37 * mm],
        ),
        Spacer(1, 6 * mm),
        _table(
            [[label for label, _amount in ageing], [amount for _label, amount in ageing]],
            [34.8 * mm] * len(ageing),
        ),
    ]
    return _render(f"Statement {customer}", story)


def report_pdf(*, title: str, heading: Sequence[str], tables: Sequence[Any]) -> bytes:
    """A report (apps.accounting.lib.exports.Table each), landscape when a table is wide: its
    title and period, then each table with its totals in bold."""
    from reportlab.lib.pagesizes import landscape

    wide = any(len(table.columns) > 5 for table in tables)
    size = landscape(A4) if wide else A4
    usable = size[0] - 36 * mm
    story: list[Any] = [Paragraph(escape(title), _style(14, bold=True))]
    story += [Paragraph(escape(line), _style()) for line in heading]
    for table in tables:
        story += [Spacer(1, 5 * mm), Paragraph(escape(table.title), _style(11, bold=True)), Spacer(1, 2 * mm)]
        if not table.rows and not table.foot:
            story.append(Paragraph(escape("Nothing in this period."), _style(9)))
            continue
        count = len(table.columns)
        first = usable * (0.34 if count > 2 else 0.6)
        widths = [first] + [(usable - first) / (count - 1)] * (count - 1) if count > 1 else [usable]
        rows = [table.columns, *table.rows, *table.foot]
        shown = Table(
            [
                [
                    Paragraph(
                        escape("" if value is None else str(value)),
                        ParagraphStyle(
                            "cell",
                            parent=_style(8, bold=index == 0 or index > len(table.rows)),
                            alignment=2 if column in table.numeric else 0,
                        ),
                    )
                    for column, value in enumerate(row)
                ]
                for index, row in enumerate(rows)
            ],
            colWidths=widths,
            repeatRows=1,
        )
        shown.setStyle(
            TableStyle(
                [
                    ("LINEBELOW", (0, 0), (-1, 0), 0.6, colors.black),
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    *(
                        [
                            (
                                "LINEABOVE",
                                (0, len(table.rows) + 1),
                                (-1, len(table.rows) + 1),
                                0.6,
                                colors.black,
                            )
                        ]
                        if table.foot
                        else []
                    ),
                ]
            )
        )
        story.append(shown)
    buffer = io.BytesIO()
    vera()
    document = SimpleDocTemplate(buffer, pagesize=size, title=title, leftMargin=18 * mm, rightMargin=18 * mm)
    document.build(story)
    return buffer.getvalue()
