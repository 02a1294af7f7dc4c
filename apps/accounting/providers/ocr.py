"""Text of scanned bills: Tesseract OCR (Debian's `tesseract-ocr`, which bootstrap.py installs).

A photo or scan (PNG, JPEG, TIFF, WebP, GIF, BMP) is read as it is; a PDF without a text layer is
read from the images embedded in its pages (a scanner's PDF is one image per page), through
pypdf, so no PDF renderer is needed. Tesseract runs as a program, on the image as PNG on its
standard input, with a time limit; when it is not installed the caller gets OCR_UNAVAILABLE.
"""

import io
import logging
import shutil
import subprocess

from django.conf import settings
from django.utils.translation import gettext as _

from apps.accounting.errors import (
    OcrFailed,
    OcrImageUnreadable,
    OcrPdfImagesUnreadable,
    OcrTimedOut,
    OcrUnavailable,
)

logger = logging.getLogger(__name__)
IMAGE_TYPES = {
    "image/png",
    "image/jpeg",
    "image/tiff",
    "image/webp",
    "image/gif",
    "image/bmp",
}
# Pages of a PDF read at most (a bill is a page or two; a 300-page scan is not a bill).
MAX_PAGES = 10
TIMEOUT_SECONDS = 60
# Tesseract reads small print poorly: images narrower than this are scaled up first.
MIN_WIDTH = 1600


def tesseract() -> str:
    found = shutil.which(settings.ATRIUM_ACCOUNTING_TESSERACT)
    if not found:
        raise OcrUnavailable(program=settings.ATRIUM_ACCOUNTING_TESSERACT)
    return found


def _png(data: bytes) -> bytes:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            picture = image.convert("L")
    except (UnidentifiedImageError, OSError, ValueError) as error:
        raise OcrImageUnreadable(kind=type(error).__name__) from error
    if picture.width < MIN_WIDTH:
        scale = MIN_WIDTH / picture.width
        picture = picture.resize((MIN_WIDTH, round(picture.height * scale)))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


def image_text(data: bytes) -> str:
    """The text Tesseract reads in one image."""
    program = tesseract()
    try:
        done = subprocess.run(  # noqa: S603  (a fixed program, the image on stdin)
            [program, "stdin", "stdout", "-l", settings.ATRIUM_ACCOUNTING_OCR_LANGUAGES, "--psm", "6"],
            input=_png(data),
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise OcrTimedOut(seconds=TIMEOUT_SECONDS) from error
    if done.returncode != 0:
        logger.warning("tesseract failed with %s", done.returncode)
        # Tesseract's own last words, or ours.
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [_("no message")]
        raise OcrFailed(problem=said[0][:200])
    return done.stdout.decode("utf-8", "replace")


def pdf_images(data: bytes) -> list[bytes]:
    """The images of a PDF's first pages, in page order."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        found: list[bytes] = []
        for page in reader.pages[:MAX_PAGES]:
            found.extend(image.data for image in page.images)
    except (PdfReadError, ValueError, KeyError, OSError) as error:
        raise OcrPdfImagesUnreadable(kind=type(error).__name__) from error
    return found


def text_of(data: bytes, mime_type: str) -> str:
    """OCR of an image file or of a scanned PDF's page images."""
    if mime_type in IMAGE_TYPES:
        return image_text(data)
    images = pdf_images(data)
    if not images:
        raise OcrFailed(problem=_("the PDF has neither text nor scanned images"))
    return "\n\n".join(image_text(image) for image in images)
