"""Documents' and files' contents for Platform's media tools: their text (the project's own
extraction, apps.files.extract, and Tesseract OCR, apps.accounting's as purchase bills are read),
speech to text and a look at an image through the service's model backends (apps.core.modelcalls,
which the message gateway fills; metered against the caller's API key).

Caps: a file of at most MAX_MEGABYTES (25 MB, the OpenAI transcription API's own limit), OCR of a
scanned PDF's first pages (apps.accounting.api.OCR_MAX_PAGES), an image of at most MAX_PIXELS. An
image is sent without its metadata (EXIF: place, camera, time): it is decoded and written again,
scaled to at most MAX_SIDE pixels on its longer side.
"""

import io
import re
from dataclasses import dataclass

from apps.accounting import api as accounting
from apps.core import modelcalls
from apps.core.actors import Actor
from apps.documents import api as documents
from apps.files import api as files
from apps.platform import errors

MAX_MEGABYTES = 25
MAX_BYTES = MAX_MEGABYTES * 1024 * 1024
MAX_PIXELS = 50_000_000
MAX_SIDE = 2048
# A PDF whose text layer has fewer word characters than this is a scan.
SCAN_BELOW = 20
AUDIO_TYPES = {
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
    "audio/mp4": "m4a",
    "audio/x-m4a": "m4a",
    "audio/m4a": "m4a",
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/wave": "wav",
    "audio/webm": "webm",
    "audio/ogg": "ogg",
    "audio/flac": "flac",
    "audio/x-flac": "flac",
    "video/mp4": "mp4",
    "video/mpeg": "mpeg",
    "video/webm": "webm",
}
IMAGE_TYPES = {"image/png", "image/jpeg", "image/webp", "image/gif"}


@dataclass(frozen=True)
class Extracted:
    source: str  # "file" or "document"
    id: int
    name: str
    mime_type: str
    method: str  # "text", "ocr" or "document"
    text: str


def _mime(file: files.File, data: bytes) -> str:
    if file.mime_type in ("", "application/octet-stream"):
        return files.guess_type(file.name, data)
    return file.mime_type


def _readable(actor: Actor, file_id: int, tool: str) -> tuple[files.File, bytes, str]:
    """The file as the actor may see it, within the size cap, its bytes and its type."""
    file = files.file(actor=actor, file_id=file_id)
    if file.size > MAX_BYTES:
        raise errors.MediaTooLarge(
            name=file.name, megabytes=round(file.size / 1024 / 1024, 1), tool=tool, most=MAX_MEGABYTES
        )
    data = files.file_bytes(file)
    return file, data, _mime(file, data)


def extract_text(
    actor: Actor, *, file_id: int | None, document_id: int | None, ocr: str = "auto"
) -> Extracted:
    """The text of a file (its text layer, else OCR of a scan; `ocr`: "auto", "always" or
    "never") or of a document."""
    if (file_id is None) == (document_id is None):
        raise errors.NoMediaSource()
    if document_id is not None:
        title, text = documents.document_text(actor=actor, document_id=document_id)
        return Extracted("document", document_id, title, "text/html", "document", text)
    assert file_id is not None
    file, data, mime_type = _readable(actor, file_id, "extractDocumentText")
    scan = mime_type in accounting.OCR_IMAGE_TYPES
    if ocr == "always" or (scan and ocr == "auto"):
        if not scan and mime_type != files.PDF:
            raise errors.NothingForOcr(name=file.name, mime_type=mime_type)
        return Extracted("file", file.pk, file.name, mime_type, "ocr", accounting.ocr_text(data, mime_type))
    if scan:
        raise errors.TextNeedsOcr(name=file.name, mime_type=mime_type)
    text = files.file_text(file) if mime_type == file.mime_type else files.text_of(data, mime_type)
    if mime_type == files.PDF and len(re.findall(r"\w", text)) < SCAN_BELOW:
        if ocr == "never":
            raise errors.TextNeedsOcr(name=file.name, mime_type=mime_type)
        return Extracted("file", file.pk, file.name, mime_type, "ocr", accounting.ocr_text(data, mime_type))
    return Extracted("file", file.pk, file.name, mime_type, "text", text)


def _model_failure(error: modelcalls.ModelCallError, tool: str) -> Exception:
    if isinstance(error, modelcalls.NotConfigured):
        return errors.ModelNotConfigured(tool=tool, problem=error.problem)
    if isinstance(error, modelcalls.NoApiKey):
        return errors.ModelNeedsApiKey(tool=tool)
    assert isinstance(error, modelcalls.CallFailed)
    return errors.ModelCallFailed(problem=error.problem)


@dataclass(frozen=True)
class Heard:
    file: files.File
    transcript: modelcalls.Transcript


def transcribe(actor: Actor, *, api_key_id: int | None, file_id: int, language: str, prompt: str) -> Heard:
    file, data, mime_type = _readable(actor, file_id, "transcribeAudio")
    if mime_type not in AUDIO_TYPES:
        raise errors.NotAudio(
            name=file.name, mime_type=mime_type, known=", ".join(sorted(set(AUDIO_TYPES.values())))
        )
    try:
        heard = modelcalls.provider().transcribe(
            api_key_id=api_key_id,
            data=data,
            filename=file.name,
            mime_type=mime_type,
            language=language,
            prompt=prompt,
        )
    except modelcalls.ModelCallError as error:
        raise _model_failure(error, "transcribeAudio") from None
    return Heard(file, heard)


@dataclass(frozen=True)
class Picture:
    data: bytes
    mime_type: str
    width: int
    height: int
    # The image was written again smaller.
    scaled: bool


def clean_image(name: str, data: bytes, mime_type: str) -> Picture:
    """The image decoded and written again without its metadata (EXIF, XMP, ICC, comments), at
    most MAX_SIDE pixels on its longer side: a JPEG stays a JPEG, anything else becomes a PNG."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise errors.ImageTooManyPixels(
                    name=name, width=width, height=height, most=MAX_PIXELS // 1_000_000
                )
            image.load()
            # Turned as the camera meant it (the EXIF orientation), before the EXIF goes.
            picture = ImageOps.exif_transpose(image)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as error:
        raise errors.ImageUnreadable(name=name, kind=type(error).__name__) from error
    scaled = max(picture.size) > MAX_SIDE
    if scaled:
        picture.thumbnail((MAX_SIDE, MAX_SIDE))
    jpeg = mime_type == "image/jpeg"
    mode = "RGB" if jpeg else ("RGBA" if picture.mode in ("RGBA", "LA", "P") else "RGB")
    fresh = Image.new(mode, picture.size)
    fresh.paste(picture.convert(mode))
    out = io.BytesIO()
    fresh.save(out, format="JPEG" if jpeg else "PNG", **({"quality": 90} if jpeg else {}))
    return Picture(out.getvalue(), "image/jpeg" if jpeg else "image/png", fresh.width, fresh.height, scaled)


@dataclass(frozen=True)
class Seen:
    file: files.File
    picture: Picture
    look: modelcalls.Look


def analyze_image(
    actor: Actor, *, api_key_id: int | None, file_id: int, question: str, max_tokens: int
) -> Seen:
    file, data, mime_type = _readable(actor, file_id, "analyzeImage")
    if mime_type not in IMAGE_TYPES:
        raise errors.NotAnImage(name=file.name, mime_type=mime_type, known="PNG, JPEG, WebP, GIF")
    picture = clean_image(file.name, data, mime_type)
    try:
        look = modelcalls.provider().look_at(
            api_key_id=api_key_id,
            data=picture.data,
            mime_type=picture.mime_type,
            question=question,
            max_tokens=max_tokens,
        )
    except modelcalls.ModelCallError as error:
        raise _model_failure(error, "analyzeImage") from None
    return Seen(file, picture, look)
