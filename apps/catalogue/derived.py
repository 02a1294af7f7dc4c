"""The tools' schemas, kept between a process's starts.

Building a tool's input and output schemas (pydantic's JSON Schema, then the registry's
compaction) is most of what the catalogue costs a process's start: about a second at 300 tools,
two at 684. They follow from the code alone (the tool's signature, its shapes, the registry's
rules), so each process that builds them writes them to `DATA_DIR/cache/tool-schemas.json`, under
the code's fingerprint, and the next process with the same code reads them instead.

The fingerprint covers every Python file of `apps/` and `config/` (their paths and contents), the
versions of Python and pydantic, the settings module and every `ATRIUM_*` variable of the
environment (settings come from them): a change to any of those, and every schema is built again.
A tool defined inside a function (a test's) is never kept: its name in the code
(`test_x.<locals>.tool`) may stand for another tool each time it is made.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pydantic
from django.conf import settings

Schemas = tuple[dict[str, Any], dict[str, Any] | None]

_lock = threading.Lock()
_kept: dict[str, Any] | None = None
_made: dict[str, list[Any]] = {}
_fingerprint: str | None = None


def key(module: str, qualname: str, name: str) -> str | None:
    """Where a tool's schemas are kept (None: not kept)."""
    return None if "<locals>" in qualname else f"{module}.{qualname}:{name}"


def get(where: str) -> Schemas | None:
    """The schemas kept for a tool with this code, as new objects (the caller may change them)."""
    entry = _read().get(where)
    if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], dict):
        return None
    return copy.deepcopy(entry[0]), copy.deepcopy(entry[1])


def put(where: str, schemas: Schemas) -> None:
    with _lock:
        _made[where] = copy.deepcopy(list(schemas))


def keep() -> None:
    """Writes the schemas this process built (atomically: other processes may read the file);
    where DATA_DIR cannot be written, the next start builds them again."""
    global _kept
    with _lock:
        if not _made:
            return
        merged = {**_read(), **_made}
        _made.clear()
    path = _file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as out:
            json.dump({"fingerprint": fingerprint(), "schemas": merged}, out, separators=(",", ":"))
        os.replace(out.name, path)
    except OSError:
        return
    _kept = merged


def fingerprint() -> str:
    global _fingerprint
    if _fingerprint is None:
        digest = hashlib.sha256()
        for part in (sys.version, pydantic.VERSION, os.environ.get("DJANGO_SETTINGS_MODULE", "")):
            digest.update(part.encode() + b"\0")
        for name in sorted(name for name in os.environ if name.startswith("ATRIUM_")):
            digest.update(f"{name}={os.environ[name]}\0".encode())
        base = Path(settings.BASE_DIR)
        for folder in ("apps", "config"):
            for path in sorted((base / folder).rglob("*.py")):
                digest.update(str(path.relative_to(base)).encode() + b"\0" + path.read_bytes() + b"\0")
        _fingerprint = digest.hexdigest()
    return _fingerprint


def _file() -> Path:
    return Path(settings.DATA_DIR) / "cache" / "tool-schemas.json"


def _read() -> dict[str, Any]:
    global _kept
    if _kept is None:
        try:
            stored = json.loads(_file().read_text())
            fresh = isinstance(stored, dict) and stored.get("fingerprint") == fingerprint()
            _kept = stored["schemas"] if fresh and isinstance(stored.get("schemas"), dict) else {}
        except (OSError, ValueError):
            _kept = {}
    return _kept
