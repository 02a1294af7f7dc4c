"""The Extension Builder area, as the rest of the service knows it (apps.core.areas): the
workspace's extension projects, their bundles uploaded in resumable chunks, and their validated
builds, served in a sandboxed frame on the workspace's own host."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.extensions.permissions import ExtensionsPerm

TOOLS = (
    "getExtensionBuilderOverview",
    "proposeBrief",
    "createExtensionProject",
    "setExtensionMeta",
    "uploadExtensionLogo",
    "getExtensionFrameSpec",
    "getExtensionRules",
    "getPlatformDataShapes",
    "getSupportedLocales",
    "beginBundleUpload",
    "pushBundleChunks",
    "finalizeChunkedUpload",
    "validateExtensionBundle",
    "getExtensionStatus",
    "listExtensionBuilds",
    "composeExtensionBuildPrompt",
    "getMyExtensionBrief",
)

area = areas.declare(
    title=_("Extension Builder"),
    group=areas.Group.AUTOMATION,
    description=_("Extensions for the workspace: briefs, bundles uploaded in chunks, validated builds"),
    words="extension app plugin add-on bundle manifest zip",
    hints={
        "getExtensionBuilderOverview": (
            "extension add-on projects overview, builds approved rejected, what we build"
        ),
        "proposeBrief": "propose a new extension add-on plugin idea, write its brief",
        "createExtensionProject": "deprecated old way to start an extension add-on, now proposeBrief",
        "setExtensionMeta": "extension's name description category declared data scopes locales",
        "uploadExtensionLogo": "extension add-on logo icon image PNG SVG upload",
        "getExtensionFrameSpec": (
            "extension iframe sandbox content security policy CSP, frame bridge contract"
        ),
        "getExtensionRules": "extension bundle rules manifest JSON schema size limits caps zip",
        "getPlatformDataShapes": (
            "data shapes record types entities an extension add-on may read write scopes"
        ),
        "getSupportedLocales": "locales languages BCP 47 tags for extension translations",
        "beginBundleUpload": "start a resumable chunked upload session of an extension zip bundle sha256",
        "pushBundleChunks": "send next chunk of the extension bundle upload at an offset, resume",
        "finalizeChunkedUpload": "finish finalize the chunked bundle upload into a build, check size hash",
        "validateExtensionBundle": "validate check an extension build bundle manifest code zip slip locales",
        "getExtensionStatus": "status of one extension project, its latest build version, approved or not",
        "listExtensionBuilds": "extension builds versions uploaded with validation reports, rejected",
        "composeExtensionBuildPrompt": "prompt instructions for a coding agent AI to build the extension",
        "getMyExtensionBrief": "the brief I proposed wrote for my extension add-on",
    },
    profiles={"extensions": TOOLS},
    nav=[NavItem("extensions", _("Extensions"), "extensions:projects", ExtensionsPerm.VIEW, order=60)],
    kinds=[],
    not_kinds={
        "extensions.Project": "a project of the Extension Builder, reached through its own tools",
        "extensions.Build": "a version of a project's bundle (listExtensionBuilds)",
        "extensions.Upload": "a resumable upload in progress, a step of making a build",
    },
    periodic={
        # Uploads past their expiry: their chunks deleted from the storage.
        "extensions-sweep-uploads": areas.Periodic(
            "apps.extensions.tasks.sweep_uploads", crontab(minute="*/15")
        ),
    },
    settings={
        # Hours a bundle upload stays open for its chunks.
        "ATRIUM_EXTENSIONS_UPLOAD_HOURS": env.int("ATRIUM_EXTENSIONS_UPLOAD_HOURS", 24, min=1),
    },
)
