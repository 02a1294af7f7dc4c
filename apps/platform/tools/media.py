"""The contents of files and documents: their text (the project's extraction, Tesseract OCR for
scans), speech to text and a look at an image through the service's model backends, metered
against the caller's API key. The work is apps.platform.media's."""

from typing import Annotated, Literal

from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out, id_field
from apps.platform import media
from apps.platform.permissions import PlatformPerm

# Characters of text an answer holds at most (the rest from `offset`).
MAX_CHARS = 200_000


class ExtractedTextOut(Out):
    source: str = Field(description="file or document")
    id: int
    name: str
    mime_type: str
    method: str = Field(description="text (its text layer), ocr (read from the scan), or document")
    text: str
    offset: int
    total_chars: int
    next_offset: int | None = Field(description="Where the rest starts; null: nothing more")


@tool(
    "extractDocumentText",
    permission=PlatformPerm.VIEW,
    title="Extract a file's text",
    read_only=True,
    long_running=True,
)
def extract_document_text(
    ctx: ToolContext,
    *,
    file_id: Annotated[
        int | None, id_field("listFiles", description="A PDF, image, Word, Excel, PowerPoint or text file")
    ] = None,
    document_id: Annotated[int | None, id_field("listDocuments", description="Instead of fileId")] = None,
    ocr: Annotated[
        Literal["auto", "always", "never"],
        Field(description="auto: OCR (Tesseract) for images and PDFs without a text layer"),
    ] = "auto",
    offset: Annotated[int, Field(ge=0, description="From nextOffset")] = 0,
    max_chars: Annotated[
        int, Field(ge=1, le=MAX_CHARS, description="Characters of text in this answer")
    ] = 50_000,
) -> ExtractedTextOut:
    """Get the text of a file or document, scans and photos by OCR; readFileContent gives raw content.

    The first 10 pages of a scanned PDF are read; files of at most 25 MB."""
    found = media.extract_text(ctx.actor, file_id=file_id, document_id=document_id, ocr=ocr)
    part = found.text[offset : offset + max_chars]
    end = offset + len(part)
    return ExtractedTextOut(
        source=found.source,
        id=found.id,
        name=found.name,
        mime_type=found.mime_type,
        method=found.method,
        text=part,
        offset=offset,
        total_chars=len(found.text),
        next_offset=end if end < len(found.text) else None,
    )


class TranscriptOut(Out):
    file_id: int
    name: str
    text: str
    language: str = Field(description="As the model heard it; empty when it did not say")
    duration_seconds: float | None
    model: str
    cost_micro_usd: int = Field(description="Charged to your API key's budget")


@tool(
    "transcribeAudio",
    permission=PlatformPerm.VIEW,
    title="Transcribe audio",
    open_world=True,
    long_running=True,
)
def transcribe_audio(
    ctx: ToolContext,
    *,
    file_id: Annotated[int, id_field("listFiles", description="An audio or video file, at most 25 MB")],
    language: Annotated[
        str,
        Field(
            max_length=10, pattern=r"^([a-z]{2,3})?$", description="ISO 639-1 code (en, de); empty: detected"
        ),
    ] = "",
    prompt: Annotated[str, Field(max_length=1000, description="Names and terms to expect")] = "",
) -> TranscriptOut:
    """Turn the speech of an audio or video file into text; extractDocumentText reads written text.

    Metered: needs an API key and a transcription model configured."""
    heard = media.transcribe(
        ctx.actor, api_key_id=ctx.principal.api_key_id, file_id=file_id, language=language, prompt=prompt
    )
    transcript = heard.transcript
    return TranscriptOut(
        file_id=heard.file.pk,
        name=heard.file.name,
        text=transcript.text,
        language=transcript.language,
        duration_seconds=transcript.seconds,
        model=transcript.model,
        cost_micro_usd=transcript.cost_micro_usd,
    )


class ImageAnalysisOut(Out):
    file_id: int
    name: str
    answer: str
    cut: bool = Field(description="The answer stopped at maxTokens")
    width: int = Field(description="Of the image as sent")
    height: int
    metadata_removed: bool = Field(description="EXIF and other metadata were stripped before sending")
    model: str
    cost_micro_usd: int = Field(description="Charged to your API key's budget")


@tool("analyzeImage", permission=PlatformPerm.VIEW, title="Analyze an image", open_world=True)
def analyze_image(
    ctx: ToolContext,
    *,
    file_id: Annotated[int, id_field("listFiles", description="A PNG, JPEG, WebP or GIF image")],
    question: Annotated[
        str, Field(min_length=1, max_length=2000, description="What to look for or answer about it")
    ] = "Describe this image: what it shows, and any text in it.",
    max_tokens: Annotated[int, Field(ge=16, le=4000, description="Length of the answer at most")] = 600,
) -> ImageAnalysisOut:
    """Ask a vision model about an image file; extractDocumentText reads an image's text by OCR.

    Metadata (EXIF: place, camera) is stripped before the image is sent."""
    seen = media.analyze_image(
        ctx.actor,
        api_key_id=ctx.principal.api_key_id,
        file_id=file_id,
        question=question,
        max_tokens=max_tokens,
    )
    return ImageAnalysisOut(
        file_id=seen.file.pk,
        name=seen.file.name,
        answer=seen.look.text,
        cut=seen.look.cut,
        width=seen.picture.width,
        height=seen.picture.height,
        metadata_removed=True,
        model=seen.look.model,
        cost_micro_usd=seen.look.cost_micro_usd,
    )
