"""The Extension Builder area of the catalogue (SPEC 4.7), and Platform's composeExtensionBuildPrompt
and getMyExtensionBrief: thin doors onto services and selectors. The way through: proposeBrief,
setExtensionMeta (and uploadExtensionLogo), beginBundleUpload, pushBundleChunks,
finalizeChunkedUpload, validateExtensionBundle."""

from typing import Annotated, Any, Literal

from django.db.models import Q
from django.utils.translation import gettext as _
from pydantic import Field

from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Changes, In, Limit, Offset, Out, Page, paginate
from apps.core.records import Action
from apps.extensions import selectors, services
from apps.extensions.lib import bundle, frame, logo
from apps.extensions.models import Build, Project, Upload
from apps.extensions.permissions import ExtensionsPerm
from apps.extensions.shapes import BuildId, BuildOut, ProjectId, ProjectOut, SessionId, Sha256, UploadOut

Scope = Annotated[str, Field(max_length=80, pattern=bundle.SCOPE.pattern, description="<shape>:read|write")]
Tag = Annotated[str, Field(max_length=35, description="BCP 47, e.g. pt-BR")]
BuildStatus = Literal["validating", "rejected", "approved", "published"]


def _project(ctx: ToolContext, project_id: int, action: Action = "view") -> Project:
    return Project.objects.select_related("owner").fetch(ctx.actor, project_id, action)


def _upload(ctx: ToolContext, session_id: str) -> Upload:
    token = _token(session_id)
    found = Upload.objects.restrict(ctx.actor, "change").filter(token=token).first() if token else None
    if found is None:
        # Not found, in the kit's words, whether it does not exist or is another person's.
        Upload.objects.fetch(ctx.actor, 0, "change")
    assert found is not None
    return found


def _token(session_id: str) -> str | None:
    import uuid

    try:
        return str(uuid.UUID(session_id))
    except ValueError:
        return None


# The words of a query that are searched for (each one more condition on the rows).
MOST_WORDS = 10


class OverviewOut(Out):
    projects: list[ProjectOut]
    total_projects: int
    builds: dict[str, int] = Field(description="By status")
    next_steps: list[str]


@tool(
    "getExtensionBuilderOverview",
    permission=ExtensionsPerm.VIEW,
    title="Extension Builder overview",
    read_only=True,
)
def get_extension_builder_overview(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=200, description="Words in a project's name or brief")] = "",
    limit: Limit = 25,
) -> OverviewOut:
    """Extension projects you may see, builds by status and the next steps. One project:
    getExtensionStatus."""
    rows = selectors.projects(ctx.actor)
    for word in query.split()[:MOST_WORDS]:
        rows = rows.filter(Q(name__icontains=word) | Q(brief__icontains=word))
    counts = selectors.overview(ctx.actor)
    return OverviewOut(
        projects=[ProjectOut.of(project) for project in rows.order_by("-updated_at", "-id")[:limit]],
        total_projects=counts["projects"],
        builds=counts["builds"],
        next_steps=[
            _("Propose a project with proposeBrief, then set its details with setExtensionMeta."),
            _("Read getExtensionRules and getExtensionFrameSpec before building the bundle."),
            _(
                "Upload: beginBundleUpload, pushBundleChunks, finalizeChunkedUpload; "
                "then validateExtensionBundle."
            ),
        ],
    )


class ProposedOut(Out):
    project: ProjectOut
    next: str


@tool("proposeBrief", permission=ExtensionsPerm.EDIT, title="Propose an extension brief")
def propose_brief(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(min_length=1, max_length=80, description="The extension's working title")],
    brief: Annotated[
        str, Field(min_length=1, max_length=5000, description="What it does, for whom, which data")
    ],
    visibility: Annotated[
        Literal["workspace", "private"], Field(description="private: only you")
    ] = "workspace",
) -> ProposedOut:
    """Start an extension project from a brief: what it does and which data it needs. Then:
    setExtensionMeta."""
    project = services.project_propose(
        actor=ctx.actor, fields={"name": name, "brief": brief, "visibility": visibility}
    )
    return ProposedOut(
        project=ProjectOut.of(_project(ctx, project.pk)),
        next=_("Set its description, category, scopes and locales with setExtensionMeta."),
    )


class DeprecatedOut(Out):
    deprecated: bool
    created: bool = Field(description="Always false: nothing was made")
    use_instead: str
    message: str
    example: dict[str, Any]


@tool(
    "createExtensionProject",
    permission=ExtensionsPerm.EDIT,
    title="Create an extension project (deprecated)",
    read_only=True,
)
def create_extension_project(
    ctx: ToolContext,
    *,
    name: Annotated[str, Field(max_length=80, description="Carried into the proposeBrief example")] = "",
    description: Annotated[str, Field(max_length=5000, description="Becomes the example's brief")] = "",
) -> DeprecatedOut:
    """Deprecated, makes nothing: answers how to start with proposeBrief, and the call to make."""
    return DeprecatedOut(
        deprecated=True,
        created=False,
        use_instead="proposeBrief",
        message=_(
            "createExtensionProject is deprecated and made nothing. A project now starts from a brief: call "
            "proposeBrief with a name and a brief (what the extension does, for whom, which data it reads)."
        ),
        example={
            "tool": "proposeBrief",
            "arguments": {"name": name or "My extension", "brief": description or "…"},
        },
    )


class MetaFields(Changes):
    name: Annotated[str, Field(min_length=1, max_length=80)] | None = None
    description: Annotated[str, Field(max_length=500)] | None = None
    category: Annotated[str, Field(max_length=40, description=", ".join(services.CATEGORIES))] | None = None
    scopes: Annotated[list[Scope], Field(max_length=50, description="Declared scopes")] | None = None
    locales: Annotated[list[Tag], Field(max_length=100, description="The first is the default")] | None = None
    visibility: Literal["workspace", "private"] | None = None


class MetaOut(Out):
    project: ProjectOut
    changed: list[str]


@tool("setExtensionMeta", permission=ExtensionsPerm.EDIT, title="Set an extension's details", idempotent=True)
def set_extension_meta(
    ctx: ToolContext,
    *,
    project_id: ProjectId,
    changes: Annotated[MetaFields, Field(description="Only what changes")],
) -> MetaOut:
    """Set a project's name, description, category, declared scopes or locales. Its logo:
    uploadExtensionLogo."""
    project = _project(ctx, project_id, "change")
    changed = services.project_set_meta(actor=ctx.actor, project=project, fields=changes.given(required=True))
    return MetaOut(project=ProjectOut.of(_project(ctx, project_id)), changed=changed)


class LogoOut(Out):
    project_id: int
    type: str
    size: int
    removed: int = Field(description="SVG parts removed by sanitising")


@tool(
    "uploadExtensionLogo", permission=ExtensionsPerm.EDIT, title="Upload an extension's logo", idempotent=True
)
def upload_extension_logo(
    ctx: ToolContext,
    *,
    project_id: ProjectId,
    content_base64: Annotated[str, Field(min_length=1, max_length=360_000, description="PNG or SVG")],
) -> LogoOut:
    """Set a project's logo, a PNG or an SVG (scripts, handlers and outside links removed). Its text:
    setExtensionMeta."""
    project = _project(ctx, project_id, "change")
    size, kind, removed = services.project_set_logo(
        actor=ctx.actor, project=project, content_base64=content_base64
    )
    return LogoOut(project_id=project.pk, type=kind, size=size, removed=removed)


class MessageOut(Out):
    direction: str
    type: str
    fields: dict[str, str]
    about: str


class FrameSpecOut(Out):
    protocol: str
    sandbox: str = Field(description="The iframe's sandbox attribute")
    content_security_policy: str
    headers: dict[str, str]
    messages: list[MessageOut]
    served_at: str


@tool(
    "getExtensionFrameSpec",
    permission=ExtensionsPerm.VIEW,
    title="Get the extension frame spec",
    read_only=True,
)
def get_extension_frame_spec(ctx: ToolContext) -> FrameSpecOut:
    """How an extension's frame runs: iframe sandbox, CSP and the bridge's contract. Bundle rules:
    getExtensionRules."""
    return FrameSpecOut(
        protocol=frame.PROTOCOL,
        sandbox=frame.SANDBOX,
        content_security_policy=frame.CSP,
        headers=frame.HEADERS,
        messages=[MessageOut.model_validate(message) for message in frame.messages()],
        served_at="/extensions/builds/<buildId>/frame/<entry>",
    )


class RulesOut(Out):
    manifest_schema: dict[str, Any] = Field(description="JSON Schema of manifest.json")
    max_bundle_bytes: int
    max_unpacked_bytes: int
    max_files: int
    max_ratio: int
    max_chunk_bytes: int
    upload_hours: int
    required_locale_keys: list[str]
    logo: dict[str, Any]
    rules: list[str]


@tool("getExtensionRules", permission=ExtensionsPerm.VIEW, title="Get the extension rules", read_only=True)
def get_extension_rules(ctx: ToolContext) -> RulesOut:
    """What a bundle must satisfy: manifest schema, caps, version, scopes, locales, code. Frame:
    getExtensionFrameSpec."""
    from django.conf import settings

    return RulesOut(
        manifest_schema=bundle.MANIFEST_SCHEMA,
        max_bundle_bytes=bundle.MAX_BUNDLE_BYTES,
        max_unpacked_bytes=bundle.MAX_UNPACKED_BYTES,
        max_files=bundle.MAX_FILES,
        max_ratio=bundle.MAX_RATIO,
        max_chunk_bytes=services.MAX_CHUNK_BYTES,
        upload_hours=int(settings.ATRIUM_EXTENSIONS_UPLOAD_HOURS),
        required_locale_keys=list(bundle.REQUIRED_KEYS),
        logo={"types": ["png", "svg"], "maxBytes": logo.MAX_BYTES, "pngSide": [logo.MIN_SIDE, logo.MAX_SIDE]},
        rules=[
            _("A zip with manifest.json at its root; paths relative, no '..', no symbolic links."),
            _("version is semver and above the project's last approved version."),
            _(
                "Requested scopes are among the project's declared ones, "
                "each of a shape getPlatformDataShapes lists."
            ),
            _(
                "Each supported locale is a BCP 47 tag with locales/<tag>.json: "
                "the required and the default's keys."
            ),
            _(
                "The entry HTML file exists; no eval, new Function, string timers "
                "or scripts from other hosts."
            ),
        ],
    )


class ShapeOut(Out):
    shape: str
    name: str
    area: str
    fields: list[str]
    scopes: list[str]


class ShapesOut(Out):
    shapes: list[ShapeOut]


@tool(
    "getPlatformDataShapes",
    permission=ExtensionsPerm.VIEW,
    title="List the platform data shapes",
    read_only=True,
)
def get_platform_data_shapes(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=100, description="Words in a shape's name or area")] = "",
) -> ShapesOut:
    """The record kinds an extension may ask to read or write, and the scope each needs. Scopes:
    setExtensionMeta."""
    words = query.lower().split()
    found = []
    for kind in selectors.shapes():
        text = f"{kind.key} {kind.name} {kind.area}".lower()
        if all(word in text for word in words):
            found.append(
                ShapeOut(
                    shape=kind.key,
                    name=kind.name,
                    area=kind.area,
                    fields=selectors.shape_fields(kind),
                    scopes=[f"{kind.key}:read", f"{kind.key}:write"],
                )
            )
    return ShapesOut(shapes=found)


class LocaleOut(Out):
    tag: str
    name: str


class LocalesOut(Out):
    locales: list[LocaleOut]
    total: int
    page_languages: list[str] = Field(description="What the workspace's own pages speak")
    required_keys: list[str]


@tool("getSupportedLocales", permission=ExtensionsPerm.VIEW, title="List supported locales", read_only=True)
def get_supported_locales(
    ctx: ToolContext,
    *,
    query: Annotated[str, Field(max_length=100, description="Words in a tag or name, e.g. portuguese")] = "",
    limit: Annotated[int, Field(ge=1, le=1000, description="Most tags to list")] = 100,
) -> LocalesOut:
    """BCP 47 locale tags an extension may ship, and the keys each locale file needs. Rules:
    getExtensionRules."""
    found = selectors.locales(query)
    return LocalesOut(
        locales=[LocaleOut(tag=tag, name=name) for tag, name in found[:limit]],
        total=len(found),
        page_languages=selectors.page_languages(),
        required_keys=list(bundle.REQUIRED_KEYS),
    )


class BegunOut(Out):
    upload: UploadOut
    max_chunk_bytes: int
    next: str


@tool("beginBundleUpload", permission=ExtensionsPerm.EDIT, title="Begin a bundle upload")
def begin_bundle_upload(
    ctx: ToolContext,
    *,
    project_id: ProjectId,
    size: Annotated[int, Field(ge=1, le=2**40, description="The zip's bytes")],
    sha256: Sha256,
    filename: Annotated[str, Field(max_length=200, description="The zip's file name, for people")] = "",
) -> BegunOut:
    """Open a resumable upload of a bundle zip with its size and SHA-256; it expires. Then:
    pushBundleChunks."""
    project = _project(ctx, project_id, "change")
    upload = services.upload_begin(
        actor=ctx.actor, project=project, size=size, sha256=sha256, filename=filename
    )
    return BegunOut(
        upload=UploadOut.of(upload),
        max_chunk_bytes=services.MAX_CHUNK_BYTES,
        next=_("Send chunks from offset 0 with pushBundleChunks, then finalizeChunkedUpload."),
    )


class ChunkIn(In):
    offset: Annotated[int, Field(ge=0, le=2**40)]
    data: Annotated[str, Field(min_length=1, max_length=2_800_000, description="Base64")]
    sha256: Sha256


class PushedOut(Out):
    upload: UploadOut
    taken: int
    resent: int = Field(description="Chunks already received, acknowledged again")
    complete: bool


@tool("pushBundleChunks", permission=ExtensionsPerm.EDIT, title="Push bundle chunks", idempotent=True)
def push_bundle_chunks(
    ctx: ToolContext,
    *,
    session_id: SessionId,
    chunks: Annotated[list[ChunkIn], Field(min_length=1, max_length=8, description="In offset order")],
) -> PushedOut:
    """Send chunks of a begun upload, each at the offset expected with its SHA-256. Then:
    finalizeChunkedUpload."""
    upload = _upload(ctx, session_id)
    taken, resent = services.upload_push(
        actor=ctx.actor, upload=upload, chunks=[chunk.model_dump() for chunk in chunks]
    )
    upload.refresh_from_db()
    return PushedOut(
        upload=UploadOut.of(upload), taken=taken, resent=resent, complete=upload.received == upload.size
    )


class FinalizedOut(Out):
    build: BuildOut
    next: str


@tool("finalizeChunkedUpload", permission=ExtensionsPerm.EDIT, title="Finalize a bundle upload")
def finalize_chunked_upload(ctx: ToolContext, *, session_id: SessionId) -> FinalizedOut:
    """Close an upload: its total size and SHA-256 checked, a build made. Then: validateExtensionBundle."""
    upload = _upload(ctx, session_id)
    build = services.upload_finalize(actor=ctx.actor, upload=upload)
    return FinalizedOut(build=BuildOut.of(build), next=_("Validate the build with validateExtensionBundle."))


def _build(ctx: ToolContext, build_id: int, action: Action = "view") -> Build:
    return Build.objects.select_related("project").fetch(ctx.actor, build_id, action)


@tool("validateExtensionBundle", permission=ExtensionsPerm.EDIT, title="Validate an extension bundle")
def validate_extension_bundle(ctx: ToolContext, *, build_id: BuildId) -> BuildOut:
    """Check a finalized build's zip, manifest, version, scopes, locales and code: approved or rejected."""
    build = services.build_validate(actor=ctx.actor, build=_build(ctx, build_id, "change"))
    return BuildOut.of(build)


class StatusOut(Out):
    project: ProjectOut
    latest: BuildOut | None
    last_approved_version: str | None
    open_uploads: list[UploadOut]


@tool("getExtensionStatus", permission=ExtensionsPerm.VIEW, title="Get an extension's status", read_only=True)
def get_extension_status(ctx: ToolContext, *, project_id: ProjectId) -> StatusOut:
    """One project: details, latest build and its report, open uploads. Every build: listExtensionBuilds."""
    project = _project(ctx, project_id)
    latest = selectors.builds(ctx.actor, project=project).first()
    return StatusOut(
        project=ProjectOut.of(project),
        latest=BuildOut.of(latest) if latest is not None else None,
        last_approved_version=selectors.last_version(project),
        open_uploads=[UploadOut.of(upload) for upload in selectors.open_uploads(ctx.actor, project)],
    )


@tool("listExtensionBuilds", permission=ExtensionsPerm.VIEW, title="List extension builds", read_only=True)
def list_extension_builds(
    ctx: ToolContext,
    *,
    project_id: Annotated[int | None, Field(ge=1, description="From getExtensionBuilderOverview")] = None,
    status: Annotated[BuildStatus | None, Field(description="Default: any")] = None,
    limit: Limit = 25,
    offset: Offset = 0,
) -> Page[BuildOut]:
    """Builds with their version, status and validation report, newest first. One project:
    getExtensionStatus."""
    project = _project(ctx, project_id) if project_id is not None else None
    rows = selectors.builds(ctx.actor, project=project, status=status)
    return paginate(rows, limit=limit, offset=offset, item=BuildOut.of)


# --- Platform's tools about extensions -----------------------------------------------------------


class BriefOut(Out):
    project_id: int
    name: str
    brief: str
    status: str = Field(description="Its latest build's, or 'brief'")


class BriefsOut(Out):
    briefs: list[BriefOut]


@tool("getMyExtensionBrief", permission=ExtensionsPerm.VIEW, title="Get my extension briefs", read_only=True)
def get_my_extension_brief(
    ctx: ToolContext,
    *,
    project_id: Annotated[int | None, Field(ge=1, description="From getExtensionBuilderOverview")] = None,
) -> BriefsOut:
    """The briefs of extension projects you proposed, or one project's. All projects:
    getExtensionBuilderOverview."""
    if project_id is not None:
        rows: Any = [_project(ctx, project_id)]
    else:
        rows = selectors.projects(ctx.actor).filter(owner_id=ctx.actor.pk).order_by("-updated_at", "-id")[:50]
    answers = []
    for project in rows:
        latest = selectors.builds(ctx.actor, project=project).first()
        answers.append(
            BriefOut(
                project_id=project.pk,
                name=project.name,
                brief=project.brief,
                status=latest.status if latest is not None else "brief",
            )
        )
    return BriefsOut(briefs=answers)


class PromptOut(Out):
    project_id: int
    prompt: str


@tool(
    "composeExtensionBuildPrompt",
    permission=ExtensionsPerm.VIEW,
    title="Compose an extension build prompt",
    read_only=True,
)
def compose_extension_build_prompt(ctx: ToolContext, *, project_id: ProjectId) -> PromptOut:
    """A prompt for a coding agent to build a project's bundle: brief, scopes, rules, frame. Brief:
    getMyExtensionBrief."""
    project = _project(ctx, project_id)
    return PromptOut(
        project_id=project.pk, prompt=services.build_prompt(project, selectors.last_version(project))
    )
