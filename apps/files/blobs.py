"""The bytes of files, in Django's storage, and the rule that keeps rows and bytes together.

Storage: `settings.ATRIUM_FILES_STORAGE` names an entry of `STORAGES` ("default"). The default
entry is django-tenants' `TenantFileSystemStorage`, which puts each workspace under its own
prefix of MEDIA_ROOT (`workspaces/<schema>/`); docs/files.md shows the S3-compatible setting.

Keys are random (`files/2026/11/<uuid>`), never reused and never overwritten, so a row always
names bytes that belong to it alone and no file name (personal data) reaches the storage.

Nothing half-written: bytes are written *before* their row, inside the caller's transaction,
and `write()` registers a commit hook that owns the key. When the transaction (or the savepoint
around a tool call) commits, the hook runs and the bytes stay. When it rolls back, Django drops
the hook without running it, and the hook, no longer referenced, deletes the bytes as it goes
(CPython frees it at once). Bytes removed on purpose (`remove_after_commit`) go only once the
row's deletion has committed. So a committed row always has its bytes, and bytes whose row did
not commit are removed.
"""

import hashlib
import logging
import uuid
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages
from django.db import transaction
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.core.db import connection
from apps.files import errors

logger = logging.getLogger(__name__)


def storage() -> Storage:
    return storages[getattr(settings, "ATRIUM_FILES_STORAGE", "default")]


def max_bytes() -> int:
    return int(settings.ATRIUM_FILES_MAX_BYTES)


def check_size(size: int) -> None:
    limit = max_bytes()
    if size > limit:
        raise errors.FileTooLarge(
            size=human_size(size),
            limit=human_size(limit),
            details={"content": [f"over {limit} bytes"]},
        )


def human_size(size: int) -> str:
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} bytes"


class _UntilCommit:
    """The commit hook of one written key (see the module docstring)."""

    def __init__(self, key: str) -> None:
        self.key = key
        # The storage's prefix follows the active schema, which may differ when the hook is freed.
        self.schema_name = connection.schema_name
        self.committed = False

    def __call__(self) -> None:
        self.committed = True

    def __del__(self) -> None:
        if not self.committed:
            try:
                with schema_context(self.schema_name):
                    storage().delete(self.key)
            except Exception:
                logger.warning(
                    "could not remove the bytes of a rolled-back file (%s)", self.key, exc_info=True
                )


def write(data: bytes) -> tuple[str, str]:
    """Stores `data` under a new key; returns (key, sha256). Checks the size limit first."""
    check_size(len(data))
    now = timezone.now()
    key = f"files/{now:%Y/%m}/{uuid.uuid4().hex}"
    try:
        key = storage().save(key, ContentFile(data))
    except Exception as error:
        logger.exception("storage refused a write")
        raise errors.NotStored() from error
    # The hook is referenced only by the transaction's list of commit hooks (see above).
    transaction.on_commit(_UntilCommit(key))
    return key, hashlib.sha256(data).hexdigest()


def read(key: str) -> bytes:
    try:
        with storage().open(key, "rb") as handle:
            return handle.read()
    except FileNotFoundError as error:
        logger.error("the bytes of a file are missing from the storage (%s)", key)
        raise errors.ContentMissing() from error
    except OSError as error:
        raise errors.StorageFailed() from error


def exists(key: str) -> bool:
    return storage().exists(key)


def remove_after_commit(keys: list[str]) -> None:
    """Deletes bytes once the deletion of their rows has committed."""

    schema_name = connection.schema_name

    def remove() -> None:
        with schema_context(schema_name):
            for key in keys:
                try:
                    storage().delete(key)
                except Exception:  # the rows are gone; a leftover blob is only space
                    logger.warning("could not remove the bytes of an erased file (%s)", key, exc_info=True)

    transaction.on_commit(remove)


def open_for_streaming(key: str) -> Any:
    return storage().open(key, "rb")
