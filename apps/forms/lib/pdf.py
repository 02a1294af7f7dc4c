"""A submission as a PDF (ReportLab, the engine the service already renders with): the form's
title, the version answered, each question with its answer in the version's order, and a footer
with the submission's content hash when it is locked. Text set in Bitstream Vera (ReportLab's own
TrueType family), so accented text comes out as written."""

import io
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from apps.core.pdf import FONT, vera


def answer_text(field: dict[str, Any], value: Any) -> str:
    if value is None:
        return "—"
    if field["type"] == "checkbox":
        return "Yes" if value else "No"
    if field["type"] == "file" and isinstance(value, dict):
        return f"{value.get('name', 'file')} ({value.get('mimeType', '')}, {value.get('size', 0)} bytes)"
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def render(*, title: str, lines: list[tuple[str, str]], facts: list[tuple[str, str]], footer: str) -> bytes:
    """The PDF's bytes: a title, facts (submitted, version, respondent), the answers, a footer."""
    vera()
    base = ParagraphStyle("base", fontName=FONT, fontSize=10, leading=13)
    bold = ParagraphStyle("bold", parent=base, fontName=f"{FONT}-Bold")
    heading = ParagraphStyle("heading", parent=bold, fontSize=16, leading=20, spaceAfter=6)
    small = ParagraphStyle("small", parent=base, fontSize=8, leading=10, textColor=colors.grey)
    out = io.BytesIO()
    document = SimpleDocTemplate(
        out,
        pagesize=A4,
        leftMargin=18 * mm,
        rightMargin=18 * mm,
        topMargin=18 * mm,
        bottomMargin=18 * mm,
        title=title,
        author="Form submission",
    )
    story: list[Any] = [Paragraph(escape(title), heading)]
    for name, value in facts:
        story.append(Paragraph(f"<b>{escape(name)}:</b> {escape(value)}", base))
    story.append(Spacer(1, 6 * mm))
    rows = [
        [Paragraph(escape(question), bold), Paragraph(escape(answer).replace("\n", "<br/>"), base)]
        for question, answer in lines
    ]
    if rows:
        table = Table(rows, colWidths=[60 * mm, None])
        table.setStyle(
            TableStyle(
                [
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LINEBELOW", (0, 0), (-1, -1), 0.25, colors.lightgrey),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
                ]
            )
        )
        story.append(table)
    story.append(Spacer(1, 8 * mm))
    story.append(Paragraph(escape(footer), small))
    document.build(story)
    return out.getvalue()
