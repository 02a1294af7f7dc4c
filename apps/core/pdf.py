"""The typeface of every PDF the service renders: Bitstream Vera, ReportLab's own TrueType family,
so accented text comes out as written. Registered once per process under one name, with its bold,
italic and bold italic, for whichever area renders first."""

import os
from functools import cache

import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

FONT = "AtriumVera"
_FILES = {
    FONT: "Vera.ttf",
    f"{FONT}-Bold": "VeraBd.ttf",
    f"{FONT}-Italic": "VeraIt.ttf",
    f"{FONT}-BoldItalic": "VeraBI.ttf",
}


@cache
def vera() -> str:
    """FONT, registered (its bold is f"{FONT}-Bold")."""
    folder = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
    for name, filename in _FILES.items():
        pdfmetrics.registerFont(TTFont(name, os.path.join(folder, filename)))
    pdfmetrics.registerFontFamily(
        FONT, normal=FONT, bold=f"{FONT}-Bold", italic=f"{FONT}-Italic", boldItalic=f"{FONT}-BoldItalic"
    )
    return FONT
