"""An extension bundle's checks: a zip archive read with the standard library's `zipfile`, every
entry checked before a byte of it is trusted, then its manifest (JSON Schema), its version (semver,
above the project's last approved one), its scopes, its locales (BCP 47, every required key) and
its code (no eval, no new Function, no script from another host).

`check(data, ...)` answers a `Report`: the problems (each a BundleProblem naming the entry), the
manifest, and what was counted. Nothing here raises for a bad bundle: the build is rejected with
its report.
"""

from __future__ import annotations

import io
import json
import re
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import langcodes
import semver
from django.utils.translation import gettext_lazy as _

from apps.extensions import errors

MANIFEST = "manifest.json"
# The caps (getExtensionRules says them).
MAX_BUNDLE_BYTES = 10 * 1024 * 1024
MAX_UNPACKED_BYTES = 25 * 1024 * 1024
MAX_FILES = 300
MAX_RATIO = 100
# A small file compresses well whatever it holds: the ratio counts from this size up.
RATIO_FROM = 64 * 1024
# Locale keys every locale file holds (besides every key of the default locale's).
REQUIRED_KEYS = ("name", "description")
# A BCP 47 tag as the manifest writes it: language, then script, region or variants, hyphenated.
BCP47 = re.compile(r"^[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}|[0-9]{3}))?(?:-[a-z0-9]{5,8})*$")
LOCALE_FILE = "locales/%s.json"
SCOPE = re.compile(r"^([a-z_]+):(read|write)$")

MANIFEST_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["name", "version", "entry", "scopes", "locales"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 80},
        "version": {"type": "string", "minLength": 5, "maxLength": 64},
        "description": {"type": "string", "maxLength": 500},
        "entry": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": r"^[^/\\].*\.html$"},
        "scopes": {
            "type": "array",
            "maxItems": 50,
            "uniqueItems": True,
            "items": {"type": "string", "pattern": SCOPE.pattern},
        },
        "locales": {
            "type": "object",
            "required": ["default", "supported"],
            "additionalProperties": False,
            "properties": {
                "default": {"type": "string", "maxLength": 35},
                "supported": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 100,
                    "uniqueItems": True,
                    "items": {"type": "string", "maxLength": 35},
                },
            },
        },
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(MANIFEST_SCHEMA)

# Code that runs what it was not shipped with: eval, the Function constructor, a string timer, a
# script or module from another host, importScripts.
REMOTE_CODE: tuple[tuple[re.Pattern[str], Any], ...] = (
    (re.compile(r"(?<![\w$.])eval\s*\("), _("eval() is called")),
    (re.compile(r"\bnew\s+Function\s*\(|(?<![\w$.])Function\s*\(\s*['\"`]"), _("new Function() is called")),
    (re.compile(r"\bset(?:Timeout|Interval)\s*\(\s*['\"`]"), _("a timer is given code as a string")),
    (
        re.compile(r"<script[^>]*\bsrc\s*=\s*['\"]?\s*(?:https?:)?//", re.I),
        _("a script is loaded from another host"),
    ),
    (
        re.compile(r"\bimport(?:Scripts)?\s*\(\s*['\"`](?:https?:)?//", re.I),
        _("code is imported from another host"),
    ),
    (re.compile(r"\bfrom\s+['\"](?:https?:)?//", re.I), _("a module is imported from another host")),
)
SCANNED = (".js", ".mjs", ".html", ".htm")


@dataclass
class Report:
    problems: list[errors.BundleProblem] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    files: int = 0
    unpacked: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problems": [
                {
                    "code": problem.code,
                    "entry": problem.data.get("entry", ""),
                    "message": str(problem.message),
                }
                for problem in self.problems
            ],
            "files": self.files,
            "unpackedBytes": self.unpacked,
        }


def unsafe_path(name: str) -> Any:
    """Why an entry's path would leave the bundle when unpacked ('' when it stays inside)."""
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return _("an absolute path")
    if "\\" in name:
        return _("a path with backslashes")
    if any(part == ".." for part in name.split("/")):
        return _("a path that climbs out with '..'")
    if "\x00" in name:
        return _("a path with a NUL byte")
    return ""


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    return info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16)


def _read(archive: zipfile.ZipFile, info: zipfile.ZipInfo, room: int) -> bytes | None:
    """The entry's bytes, read at most `room` + 1 of them (a header may lie about its size)."""
    with archive.open(info) as stream:
        data = stream.read(room + 1)
    return None if len(data) > room else data


def unpack(data: bytes) -> tuple[dict[str, bytes], Report]:
    """The bundle's files by path, each checked: path, kind, ratio, count and total size. Stops at
    the first entry that would be a zip bomb or past a cap (reading on would be the attack)."""
    report = Report()
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as error:
        report.problems.append(errors.NotAZip(problem=str(error)[:200]))
        return {}, report
    files: dict[str, bytes] = {}
    with archive:
        for count, info in enumerate(infos, start=1):
            name = info.filename
            if count > MAX_FILES:
                report.problems.append(errors.TooManyFiles(count=len(infos), limit=MAX_FILES, entry=name))
                break
            why = unsafe_path(name)
            if why:
                report.problems.append(errors.UnsafePath(entry=name, problem=why))
                continue
            if _is_symlink(info):
                report.problems.append(errors.SymlinkEntry(entry=name))
                continue
            if info.is_dir():
                continue
            if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(info.compress_size, 1):
                ratio = info.file_size // max(info.compress_size, 1)
                report.problems.append(errors.ZipBomb(entry=name, ratio=ratio, limit=MAX_RATIO))
                break
            room = MAX_UNPACKED_BYTES - report.unpacked
            try:
                content = _read(archive, info, room)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as error:
                report.problems.append(errors.EntryUnreadable(entry=name, problem=str(error)[:160]))
                continue
            if content is None:
                report.problems.append(errors.BundleSizeCap(entry=name, limit=MAX_UNPACKED_BYTES))
                break
            if len(content) > RATIO_FROM and len(content) > MAX_RATIO * max(info.compress_size, 1):
                ratio = len(content) // max(info.compress_size, 1)
                report.problems.append(errors.ZipBomb(entry=name, ratio=ratio, limit=MAX_RATIO))
                break
            report.unpacked += len(content)
            files[name] = content
        report.files = len(files)
    return files, report


def version_key(version: str) -> semver.Version | None:
    try:
        return semver.Version.parse(version)
    except (ValueError, TypeError):
        return None


def valid_tag(tag: str) -> bool:
    return bool(BCP47.match(tag)) and langcodes.tag_is_valid(tag)


def _json(files: dict[str, bytes], name: str, report: Report) -> Any:
    try:
        return json.loads(files[name].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        report.problems.append(errors.NotJson(entry=name, problem=str(error)[:120]))
        return None


def _manifest(files: dict[str, bytes], report: Report) -> dict[str, Any] | None:
    if MANIFEST not in files:
        report.problems.append(errors.ManifestMissing(entry=MANIFEST))
        return None
    manifest = _json(files, MANIFEST, report)
    if manifest is None:
        return None
    found = sorted(_VALIDATOR.iter_errors(manifest), key=lambda error: list(error.absolute_path))
    for error in found[:10]:
        where = "/".join(str(part) for part in error.absolute_path) or "/"
        report.problems.append(
            errors.ManifestInvalid(entry=MANIFEST, where=where, problem=error.message[:200])
        )
    return None if found else manifest


def _version(manifest: dict[str, Any], last: str | None, report: Report) -> None:
    version = version_key(manifest["version"])
    if version is None:
        report.problems.append(errors.VersionNotSemver(entry=MANIFEST, version=manifest["version"]))
    elif last and version <= semver.Version.parse(last):
        report.problems.append(errors.VersionNotAbove(entry=MANIFEST, version=manifest["version"], last=last))


def _scopes(manifest: dict[str, Any], declared: Iterable[str], shapes: Iterable[str], report: Report) -> None:
    declared, shapes = set(declared), set(shapes)
    for scope in manifest["scopes"]:
        match = SCOPE.match(scope)
        if match is None or match.group(1) not in shapes:
            report.problems.append(errors.UnknownScope(entry=MANIFEST, scope=scope))
        elif scope not in declared:
            report.problems.append(errors.ScopeNotDeclared(entry=MANIFEST, scope=scope))


def _locales(files: dict[str, bytes], manifest: dict[str, Any], report: Report) -> None:
    default, supported = manifest["locales"]["default"], manifest["locales"]["supported"]
    if default not in supported:
        report.problems.append(errors.DefaultLocaleUnlisted(entry=MANIFEST, locale=default))
    catalogues: dict[str, dict[str, Any]] = {}
    for tag in supported:
        if not valid_tag(tag):
            report.problems.append(errors.LocaleInvalid(entry=MANIFEST, locale=tag))
            continue
        name = LOCALE_FILE % tag
        if name not in files:
            report.problems.append(errors.LocaleFileMissing(entry=name, locale=tag))
            continue
        catalogue = _json(files, name, report)
        if not isinstance(catalogue, dict):
            if catalogue is not None:
                report.problems.append(errors.LocaleNotObject(entry=name, locale=tag))
            continue
        catalogues[tag] = catalogue
    required = set(REQUIRED_KEYS) | set(catalogues.get(default, {}))
    for tag, catalogue in catalogues.items():
        missing = sorted(required - set(catalogue))
        if missing:
            keys = ", ".join(missing[:20])
            report.problems.append(errors.LocaleKeysMissing(entry=LOCALE_FILE % tag, locale=tag, keys=keys))


def _code(files: dict[str, bytes], report: Report) -> None:
    for name, content in sorted(files.items()):
        if not name.lower().endswith(SCANNED):
            continue
        text = content.decode("utf-8", errors="replace")
        for pattern, problem in REMOTE_CODE:
            found = pattern.search(text)
            if found is not None:
                line = text.count("\n", 0, found.start()) + 1
                report.problems.append(errors.RemoteCode(entry=name, line=line, problem=problem))


def check(data: bytes, *, last_version: str | None, declared: Iterable[str], shapes: Iterable[str]) -> Report:
    """The bundle's report: its archive, manifest, version, scopes, locales and code checked."""
    files, report = unpack(data)
    if not report.ok:
        return report
    manifest = _manifest(files, report)
    if manifest is None:
        return report
    report.manifest = manifest
    _version(manifest, last_version, report)
    if manifest["entry"] not in files:
        report.problems.append(errors.EntryMissing(entry=manifest["entry"]))
    _scopes(manifest, declared, shapes, report)
    _locales(files, manifest, report)
    _code(files, report)
    return report


def entry_of(data: bytes, name: str) -> bytes | None:
    """One file of a bundle already approved (its checks passed), for the frame."""
    if unsafe_path(name):
        return None
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        try:
            info = archive.getinfo(name)
        except KeyError:
            return None
        return None if info.is_dir() or _is_symlink(info) else _read(archive, info, MAX_UNPACKED_BYTES)
