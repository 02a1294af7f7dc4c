"""A normal call of every Extension Builder tool (and Platform's composeExtensionBuildPrompt and
getMyExtensionBrief), for the catalogue's contract test."""

import base64
import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.extensions import services
from apps.extensions.tests.factories import ProjectFactory, build_of, bundle_zip, chunk, declared, sha


def _marker() -> str:
    return f"Ext{uuid.uuid4().hex[:8]}"


def _project(actor: Any) -> tuple[Any, str]:
    marker = _marker()
    return declared(actor, name=f"{marker} board", brief=f"{marker} brief"), marker


@sample("getExtensionBuilderOverview")
def get_extension_builder_overview(actor: Any) -> Sample:
    _made, marker = _project(actor)
    return Sample({"query": marker}, private=[marker])


@sample("proposeBrief")
def propose_brief(actor: Any) -> Sample:
    return Sample({"name": f"{_marker()} board", "brief": "A board of open tickets by contact"})


@sample("createExtensionProject")
def create_extension_project(actor: Any) -> Sample:
    return Sample({"name": "Ticket board"})


@sample("setExtensionMeta")
def set_extension_meta(actor: Any) -> Sample:
    project, marker = _project(actor)
    return Sample({"projectId": project.pk, "changes": {"category": "support"}}, private=[marker])


@sample("uploadExtensionLogo")
def upload_extension_logo(actor: Any) -> Sample:
    project, marker = _project(actor)
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4"/></svg>'
    return Sample(
        {"projectId": project.pk, "contentBase64": base64.b64encode(svg).decode()}, private=[marker]
    )


@sample("getExtensionFrameSpec")
def get_extension_frame_spec(actor: Any) -> Sample:
    return Sample({})


@sample("getExtensionRules")
def get_extension_rules(actor: Any) -> Sample:
    return Sample({})


@sample("getPlatformDataShapes")
def get_platform_data_shapes(actor: Any) -> Sample:
    return Sample({"query": "contact"})


@sample("getSupportedLocales")
def get_supported_locales(actor: Any) -> Sample:
    return Sample({"query": "portuguese"})


@sample("beginBundleUpload")
def begin_bundle_upload(actor: Any) -> Sample:
    project, marker = _project(actor)
    data = bundle_zip()
    return Sample({"projectId": project.pk, "size": len(data), "sha256": sha(data)}, private=[marker])


@sample("pushBundleChunks")
def push_bundle_chunks(actor: Any) -> Sample:
    project, marker = _project(actor)
    data = bundle_zip()
    upload = services.upload_begin(actor=actor, project=project, size=len(data), sha256=sha(data))
    return Sample({"sessionId": str(upload.token), "chunks": [chunk(data, 0)]}, private=[marker])


@sample("finalizeChunkedUpload")
def finalize_chunked_upload(actor: Any) -> Sample:
    project, marker = _project(actor)
    data = bundle_zip()
    upload = services.upload_begin(actor=actor, project=project, size=len(data), sha256=sha(data))
    services.upload_push(actor=actor, upload=upload, chunks=[chunk(data, 0)])
    return Sample({"sessionId": str(upload.token)}, private=[marker])


@sample("validateExtensionBundle")
def validate_extension_bundle(actor: Any) -> Sample:
    project, marker = _project(actor)
    return Sample({"buildId": build_of(actor, project).pk}, private=[marker])


@sample("getExtensionStatus")
def get_extension_status(actor: Any) -> Sample:
    project, marker = _project(actor)
    build_of(actor, project)
    return Sample({"projectId": project.pk}, private=[marker])


@sample("listExtensionBuilds")
def list_extension_builds(actor: Any) -> Sample:
    project, marker = _project(actor)
    build_of(actor, project)
    return Sample({"projectId": project.pk}, private=[marker])


@sample("getMyExtensionBrief")
def get_my_extension_brief(actor: Any) -> Sample:
    project, marker = _project(actor)
    return Sample({"projectId": project.pk}, private=[marker])


@sample("composeExtensionBuildPrompt")
def compose_extension_build_prompt(actor: Any) -> Sample:
    marker = _marker()
    project = ProjectFactory(actor=actor, name=f"{marker} board", brief=f"{marker} brief")
    return Sample({"projectId": project.pk}, private=[marker])
