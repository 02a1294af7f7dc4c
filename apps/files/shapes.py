"""What the file tools take and answer (camelCase JSON). Other areas that take file content from
an agent (Tasks' writeFile) reuse `Text`, `ContentBase64` and `content_of`."""

import base64
import binascii
import re
from datetime import datetime
from typing import Annotated, Any

from django.conf import settings
from pydantic import Field

from apps.catalogue.shapes import FolderRef, Out, PersonRef
from apps.files import blobs, errors, extract
from apps.files.models import File

FileId = Annotated[int, Field(ge=1, le=2**63 - 1, description="From listFiles")]
FolderId = Annotated[int, Field(ge=1, le=2**63 - 1, description="From listFiles")]
Name = Annotated[str, Field(min_length=1, max_length=255, description="With its extension")]
# Generous schema caps: the real limit is the workspace's (ATRIUM_FILES_MAX_BYTES), checked on decode.
Text = Annotated[str | None, Field(max_length=50_000_000, description="The content as text")]
# What one MCP request carries bounds a file sent in a call (the error over it says the same).
_CALL_MB = settings.MCP_MAX_BODY_BYTES * 3 // 4 // (1024 * 1024)
ContentBase64 = Annotated[
    str | None,
    Field(
        max_length=70_000_000,
        description=f"Or as base64, for binary files; one request carries about {_CALL_MB} MB of file",
    ),
]
_DATA_URL = re.compile(r"^data:[^,]*;base64,")


def content_of(text: str | None, content_base64: str | None) -> bytes:
    """The bytes an agent sent, as text or base64 (exactly one), within the size limit."""
    if (text is None) == (content_base64 is None):
        raise errors.ContentTwice(details={"content": ["give text or contentBase64"]})
    if text is not None:
        data = text.encode("utf-8")
        blobs.check_size(len(data))
        return data
    raw = _DATA_URL.sub("", (content_base64 or "").strip())
    raw = "".join(raw.split())
    blobs.check_size(len(raw) * 3 // 4 - raw.count("="))
    try:
        return base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True)
    except (binascii.Error, ValueError) as error:
        raise errors.NotBase64(details={"content_base64": ["not base64"]}) from error


class FileOut(Out):
    id: int
    name: str
    path: str
    folder: FolderRef | None
    mime_type: str
    size: int = Field(description="In bytes")
    sha256: str
    description: str
    source: str
    visibility: str
    owner: PersonRef | None
    text_readable: bool
    in_trash: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, file: File) -> "FileOut":
        return cls.of_record(file, text_readable=extract.can_extract(file.mime_type))


class EntryOut(Out):
    """A folder or a file in a listing."""

    type: str = Field(description="folder or file")
    id: int
    name: str
    path: str
    mime_type: str
    size: int | None
    updated_at: datetime
    deleted_at: datetime | None

    @classmethod
    def of(cls, item: Any) -> "EntryOut":
        if isinstance(item, File):
            return cls.of_record(item, type="file")
        return cls.of_record(item, type="folder", mime_type="", size=None)
