"""Held-out requests for the Extension Builder area, written from docs/extensions.md and SPEC.md 4.7
before any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("extension builder at a glance", "getExtensionBuilderOverview"),
    ("describe a plugin we want built for the workspace", "proposeBrief"),
    ("make an extension project", ("createExtensionProject", "proposeBrief")),
    ("rename our extension and give it a category", "setExtensionMeta"),
    ("replace the add-on's logo image", "uploadExtensionLogo"),
    ("how is an extension embedded in the page, its CSP", "getExtensionFrameSpec"),
    ("limits on extension bundle size and number of files", "getExtensionRules"),
    ("entities an extension can get access to", "getPlatformDataShapes"),
    ("languages an extension can be translated into", "getSupportedLocales"),
    ("begin sending the extension zip", "beginBundleUpload"),
    ("upload part of the bundle at offset 2 MB", "pushBundleChunks"),
    ("complete the extension upload", "finalizeChunkedUpload"),
    ("run the checks on the extension build", "validateExtensionBundle"),
    ("is the extension approved yet", "getExtensionStatus"),
    ("versions of the extension uploaded so far", "listExtensionBuilds"),
    ("instructions for an AI to code the extension", "composeExtensionBuildPrompt"),
    ("my extension brief", "getMyExtensionBrief"),
]
