"""Supplier bills for the tests: a PDF with a text layer (ReportLab), a scan (an image drawn with
Pillow, as PNG or wrapped in a PDF without text), stored in the Files area as a person uploads
them, and proposals made as extractPurchaseBillDocument makes them.

file = bill_pdf(actor, reference="NW-20417")        # a File
bill = proposal(actor, reference="NW-20417")        # a PurchaseBill read from that file
"""

import io
from typing import Any

BILL_LINES = [
    ("Printer paper A4 box", "10", "24.50", "245.00"),
    ("Toner cartridge", "2", "87.25", "174.50"),
]


def bill_text(
    *,
    supplier: str = "Northwind Supplies Ltd",
    reference: str = "NW-20417",
    day: str = "02/03/2026",
    due: str = "01/04/2026",
    total: str = "503.40",
    vat_number: str = "GB 980 7806 84",
) -> list[str]:
    rows = [
        supplier,
        "12 Harbour Road, Bristol BS1 4AA",
        f"VAT Reg No: {vat_number}",
        "TAX INVOICE",
        f"Invoice No: {reference}",
        f"Invoice date: {day}",
        f"Due date: {due}",
        "Description Qty Unit price Amount",
    ]
    rows += [" ".join(line) for line in BILL_LINES]
    rows += ["Subtotal 419.50", "VAT 20% 83.90", f"Total due GBP {total}"]
    return rows


def pdf_of(rows: list[str]) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    page = canvas.Canvas(out, pagesize=A4)
    y = 800
    for row in rows:
        page.drawString(60, y, row)
        y -= 22
    page.save()
    return out.getvalue()


def scan_of(rows: list[str], *, fmt: str = "PNG") -> bytes:
    """The rows as a scanner would give them: black text on white, no text layer."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=36)
    image = Image.new("L", (1700, 120 + 60 * len(rows)), color=255)
    draw = ImageDraw.Draw(image)
    for index, row in enumerate(rows):
        draw.text((80, 60 + 60 * index), row, fill=0, font=font)
    out = io.BytesIO()
    image.save(out, format=fmt, **({"resolution": 200.0} if fmt == "PDF" else {}))
    return out.getvalue()


def stored(actor: Any, name: str, content: bytes) -> Any:
    from apps.files import services

    return services.file_create(actor=actor, name=name, content=content)


def bill_pdf(actor: Any, **text: str) -> Any:
    return stored(actor, "bill.pdf", pdf_of(bill_text(**text)))


def proposal(actor: Any, **text: str) -> Any:
    from apps.accounting.lib import ledger
    from apps.accounting.services import bills

    ledger.books()
    bill, _found = bills.bill_extract(actor=actor, file_id=bill_pdf(actor, **text).pk)
    return bill


def validated(actor: Any, **text: str) -> Any:
    from apps.accounting.services import bills

    bill = proposal(actor, **text)
    problems = bills.bill_validate(actor=actor, bill=bill, fields={}, lines=None)
    assert not problems, problems
    return bill
