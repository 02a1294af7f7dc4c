"""What the Extension Builder's tools answer (camelCase JSON)."""

from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from apps.catalogue.shapes import Out, PersonRef, id_field
from apps.extensions.models import Build, Project, Upload
from apps.tenancy import links

ProjectId = Annotated[int, id_field("getExtensionBuilderOverview")]
BuildId = Annotated[int, id_field("listExtensionBuilds")]
SessionId = Annotated[str, Field(min_length=1, max_length=36, description="From beginBundleUpload")]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-fA-F]{64}$", description="Hex SHA-256")]


class ProjectOut(Out):
    id: int
    name: str
    brief: str
    description: str
    category: str
    scopes: list[str] = Field(description="Declared: what bundles may request")
    locales: list[str]
    logo: str | None = Field(description="Its type, png or svg, when set")
    visibility: str
    owner: PersonRef | None
    updated_at: datetime

    @classmethod
    def of(cls, project: Project) -> "ProjectOut":
        return cls.of_record(project, logo=project.logo_type or None)


class ProblemOut(Out):
    code: str
    entry: str = Field(description="The archive entry it is about")
    message: str


class ReportOut(Out):
    ok: bool
    problems: list[ProblemOut]
    files: int
    unpacked_bytes: int


class BuildOut(Out):
    id: int
    project_id: int
    version: str
    status: str = Field(description="validating, rejected, approved or published")
    size: int
    sha256: str
    created_at: datetime
    validated_at: datetime | None
    published_at: datetime | None
    report: ReportOut | None
    frame_url: str | None = Field(description="Where an approved build's frame is served")

    @classmethod
    def of(cls, build: Build) -> "BuildOut":
        report: Any = ReportOut.model_validate(_report(build.report)) if build.report else None
        frame = None
        if build.status in (Build.Status.APPROVED, Build.Status.PUBLISHED) and build.manifest.get("entry"):
            frame = links.page("extensions:frame", build_id=build.pk, file=build.manifest["entry"])
        return cls.of_record(build, report=report, frame_url=frame)


def _report(stored: dict[str, Any]) -> dict[str, Any]:
    return {
        "ok": stored.get("ok", False),
        "problems": stored.get("problems", []),
        "files": stored.get("files", 0),
        "unpacked_bytes": stored.get("unpackedBytes", 0),
    }


class UploadOut(Out):
    session_id: str
    project_id: int
    size: int
    sha256: str
    received: int = Field(description="Bytes received: the next chunk's offset")
    status: str
    expires_at: datetime

    @classmethod
    def of(cls, upload: Upload) -> "UploadOut":
        return cls.of_record(upload, session_id=str(upload.token))
