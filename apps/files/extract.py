"""A file's text, for readFileContent and for anything that reads files (Tasks' combineFiles).

Plain text (any text/* type, JSON, XML, YAML, CSV, Markdown) is decoded (UTF-8, UTF-16 with a
byte-order mark, else Latin-1); PDF through pypdf; Word (.docx) through python-docx; Excel
(.xlsx) through openpyxl (one block per sheet, cells tab-separated); PowerPoint (.pptx) through
python-pptx (one block per slide). Images and other binary formats have no text: the caller is
told so.
"""

import io
import mimetypes
from collections.abc import Callable

from apps.core import clean
from apps.files import errors

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
PDF = "application/pdf"
TEXT_TYPES = {
    "application/json",
    "application/xml",
    "application/yaml",
    "application/x-yaml",
    "application/javascript",
    "application/x-sh",
    "application/sql",
    "application/csv",
    "application/ld+json",
}
# Cells of a spreadsheet read at most (a huge sheet would only fill the answer with noise).
MAX_CELLS = 200_000

mimetypes.add_type("text/markdown", ".md")
mimetypes.add_type("text/csv", ".csv")
mimetypes.add_type("application/yaml", ".yaml")
mimetypes.add_type("application/yaml", ".yml")


def guess_type(name: str, data: bytes) -> str:
    """The MIME type from the name, checked against the first bytes for the formats we read."""
    guessed, _encoding = mimetypes.guess_type(name, strict=False)
    if data.startswith(b"%PDF-"):
        return PDF
    if data.startswith(b"PK\x03\x04") and guessed in {DOCX, XLSX, PPTX}:
        return guessed
    if guessed:
        return guessed
    if _looks_like_text(data[:4096]):
        return "text/plain"
    return "application/octet-stream"


def _looks_like_text(sample: bytes) -> bool:
    if not sample:
        return True
    if b"\x00" in sample and not sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as error:
        # A multi-byte character cut by the sample's end is still text.
        return error.start >= len(sample) - 3
    return True


def is_text_type(mime_type: str) -> bool:
    return mime_type.startswith("text/") or mime_type in TEXT_TYPES or mime_type.endswith(("+json", "+xml"))


def decode_text(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _pdf(data: bytes) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise errors.PdfLocked()
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError) as error:
        raise errors.PdfDamaged(kind=type(error).__name__) from error
    return "\n\n".join(text.strip() for text in pages).strip()


def _docx(data: bytes) -> str:
    import docx

    document = docx.Document(io.BytesIO(data))
    blocks = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            blocks.append("\t".join(cell.text for cell in row.cells))
    return "\n".join(blocks).strip()


def _xlsx(data: bytes) -> str:
    from openpyxl import load_workbook

    workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    blocks, cells = [], 0
    try:
        for sheet in workbook.worksheets:
            lines = [f"# {sheet.title}"]
            for row in sheet.iter_rows(values_only=True):
                cells += len(row)
                if cells > MAX_CELLS:
                    break
                values = ["" if value is None else str(value) for value in row]
                if any(values):
                    lines.append("\t".join(values).rstrip("\t"))
            blocks.append("\n".join(lines))
    finally:
        workbook.close()
    return "\n\n".join(blocks).strip()


def _pptx(data: bytes) -> str:
    from pptx import Presentation

    presentation = Presentation(io.BytesIO(data))
    blocks = []
    for number, slide in enumerate(presentation.slides, start=1):
        lines = [f"# Slide {number}"]
        for shape in slide.shapes:
            if getattr(shape, "has_text_frame", False) and shape.text_frame.text.strip():
                lines.append(shape.text_frame.text.strip())
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks).strip()


EXTRACTORS: dict[str, Callable[[bytes], str]] = {PDF: _pdf, DOCX: _docx, XLSX: _xlsx, PPTX: _pptx}


def can_extract(mime_type: str) -> bool:
    return is_text_type(mime_type) or mime_type in EXTRACTORS


def text_of(data: bytes, mime_type: str) -> str:
    """The file's text; CannotExtract when the format has none or the file is damaged."""
    if is_text_type(mime_type):
        return clean.storable(decode_text(data))
    extractor = EXTRACTORS.get(mime_type)
    if extractor is None:
        raise errors.NoTextToRead(mime_type=mime_type)
    try:
        # A PDF's ToUnicode map may give surrogates paired or alone.
        return clean.storable(extractor(data))
    except errors.CannotExtract:
        raise
    except Exception as error:
        # The bytes are anyone's: a reader meeting what it cannot read raises what it likes (pypdf
        # an unsupported filter's NotImplementedError, a reference loop's LimitReachedError, an
        # AttributeError on a malformed object), and all of it means the file is not readable.
        raise errors.NotWhatItSays(mime_type=mime_type, kind=type(error).__name__) from error
