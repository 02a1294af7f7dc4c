"""Extension projects, bundles and builds for tests, made through the services as a person makes
them: `ProjectFactory(actor=people["member"], name="Tickets board", visibility="private")`,
`bundle_zip(version="1.2.0")`, `build_of(actor, project, data)` (uploaded in chunks, finalized)."""

import base64
import hashlib
import io
import json
import zipfile
from typing import Any

from apps.catalogue.testing import listed
from apps.core import factories
from apps.core.factories import AccessRows, ServiceFactory, access_rows, fake, numbered, private_rows
from apps.extensions import services
from apps.extensions.models import Build, Project, Upload


def _project(*, actor: Any, fields: dict[str, Any]) -> Project:
    return services.project_propose(actor=actor, fields=fields)


class ProjectFactory(ServiceFactory):
    class Meta:
        model = Project

    name = numbered(fake.catch_phrase, " ")
    brief = numbered(fake.sentence, " ")
    _service = staticmethod(_project)


def manifest(**overrides: Any) -> dict[str, Any]:
    made = {
        "name": "Ticket board",
        "version": "1.0.0",
        "entry": "index.html",
        "scopes": ["contact:read"],
        "locales": {"default": "en", "supported": ["en", "pt-BR"]},
    }
    made.update(overrides)
    return made


def files(**overrides: Any) -> dict[str, bytes]:
    """A valid bundle's files (the manifest's overrides given)."""
    return {
        "manifest.json": json.dumps(manifest(**overrides)).encode(),
        "index.html": b'<!doctype html><script src="app.js"></script><div id="app"></div>',
        "app.js": b"window.parent.postMessage({type: 'ready', protocol: 'atrium.extension/1'}, '*');",
        "locales/en.json": json.dumps({"name": "Board", "description": "A board", "greeting": "Hi"}).encode(),
        "locales/pt-BR.json": json.dumps(
            {"name": "Quadro", "description": "Um quadro", "greeting": "Oi"}
        ).encode(),
    }


def zipped(content: dict[str, bytes], *, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as archive:
        for name, data in content.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def bundle_zip(**overrides: Any) -> bytes:
    return zipped(files(**overrides))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def chunk(data: bytes, offset: int) -> dict[str, Any]:
    return {"offset": offset, "data": base64.b64encode(data).decode(), "sha256": sha(data)}


def declared(actor: Any, **fields: Any) -> Project:
    """A project declaring contact:read and locales en, pt-BR."""
    project = ProjectFactory(actor=actor, **fields)
    services.project_set_meta(
        actor=actor, project=project, fields={"scopes": ["contact:read"], "locales": ["en", "pt-BR"]}
    )
    return project


def upload_of(actor: Any, project: Project, data: bytes) -> Upload:
    upload = services.upload_begin(actor=actor, project=project, size=len(data), sha256=sha(data))
    services.upload_push(actor=actor, upload=upload, chunks=[chunk(data, 0)])
    return upload


def build_of(actor: Any, project: Project, data: bytes | None = None) -> Build:
    """A build of `data` (a valid bundle by default), finalized and not yet validated."""
    upload = upload_of(actor, project, data if data is not None else bundle_zip())
    return services.upload_finalize(actor=actor, upload=upload)


@access_rows("extensions.Project")
def _projects(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(people, lambda actor, visibility: ProjectFactory(actor=actor, visibility=visibility))
    rows.listed = lambda person: listed(
        person, "getExtensionBuilderOverview", {"limit": 100}, items=lambda answer: answer["projects"]
    )
    return rows


@access_rows("extensions.Build")
def _builds(people: dict[str, Any]) -> AccessRows:
    rows = private_rows(
        people, lambda actor, visibility: build_of(actor, ProjectFactory(actor=actor, visibility=visibility))
    )
    rows.listed = lambda person: listed(person, "listExtensionBuilds", {"limit": 100})
    return rows


@access_rows("extensions.Upload")
def _uploads(people: dict[str, Any]) -> AccessRows:
    return private_rows(
        people,
        lambda actor, visibility: upload_of(actor, ProjectFactory(actor=actor, visibility=visibility), b"PK"),
    )


@factories.privacy_rows("extensions")
def _private(people: dict[str, Any], marker: str, rows: factories.PrivateRows) -> None:
    """The owner's private project, and a build of it."""
    owner = people["owner"]
    project = ProjectFactory(
        actor=owner,
        name=f"{marker} board",
        brief=f"{marker} brief",
        visibility="private",
    )
    services.project_set_meta(
        actor=owner, project=project, fields={"description": f"{marker} description", "category": "other"}
    )
    rows.add("projectId", record=project)
    build = build_of(owner, project, bundle_zip(name=f"{marker} board"))
    rows.add("buildId", record=build)
