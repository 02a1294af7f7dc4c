"""An extension built as its author lives it, through the tools and Settings → Extensions: a brief,
its details, a first version uploaded in chunks and approved, a second failing validation (a
locale left incomplete, a script from a CDN), fixed and rebuilt, an old version refused; a viewer
and the author's private project beside it."""

import json

from apps.catalogue.testing import ok, refused
from apps.extensions.tests.factories import chunk, files, sha, zipped


def _build(person, project_id: int, data: bytes) -> dict:  # type: ignore[type-arg]
    """Uploads `data` in two chunks through the tools and validates the build: the answer."""
    session = ok(
        person, "beginBundleUpload", {"projectId": project_id, "size": len(data), "sha256": sha(data)}
    )["upload"]["sessionId"]
    half = len(data) // 2
    ok(person, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(data[:half], 0)]})
    pushed = ok(person, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(data[half:], half)]})
    assert pushed["complete"] is True
    build = ok(person, "finalizeChunkedUpload", {"sessionId": session})["build"]
    assert build["status"] == "validating"
    return ok(person, "validateExtensionBundle", {"buildId": build["id"]})


def test_an_extension_built_failing_validation_fixed_and_rebuilt(people, acme_client):
    member, viewer = people["member"], people["viewer"]
    proposed = ok(member, "proposeBrief", {"name": "Ticket board", "brief": "Open tickets beside a contact"})
    pid = proposed["project"]["id"]
    assert "setExtensionMeta" in proposed["next"]
    ok(
        member,
        "setExtensionMeta",
        {
            "projectId": pid,
            "changes": {"category": "support", "scopes": ["contact:read"], "locales": ["en", "pt-BR"]},
        },
    )
    portuguese = ok(member, "getSupportedLocales", {"query": "portuguese"})
    assert "pt-BR" in [locale["tag"] for locale in portuguese["locales"]] and portuguese["requiredKeys"]

    first = _build(member, pid, zipped(files(version="1.0.0")))
    assert first["status"] == "approved" and first["report"]["ok"] is True

    # 1.1.0: the Portuguese strings left half done, and a library loaded from a CDN.
    broken = files(version="1.1.0")
    broken["locales/pt-BR.json"] = json.dumps({"name": "Quadro"}).encode()
    broken["index.html"] = b'<script src="https://cdn.example.com/lib.js"></script><div id="app"></div>'
    failed = _build(member, pid, zipped(broken))
    assert failed["status"] == "rejected"
    problems = {(problem["code"], problem["entry"]) for problem in failed["report"]["problems"]}
    assert ("BUNDLE_LOCALE_INVALID", "locales/pt-BR.json") in problems
    assert ("BUNDLE_REMOTE_CODE", "index.html") in problems
    status = ok(member, "getExtensionStatus", {"projectId": pid})
    assert status["lastApprovedVersion"] == "1.0.0" and status["latest"]["status"] == "rejected"

    # The author sees the report on the page, then fixes both and builds 1.1.0 again.
    acme_client.force_login(member)
    report = acme_client.get(f"/settings/extensions/builds/{failed['id']}/").content.decode()
    assert "BUNDLE_LOCALE_INVALID" in report and "locales/pt-BR.json" in report
    fixed = _build(member, pid, zipped(files(version="1.1.0")))
    assert fixed["status"] == "approved" and fixed["version"] == "1.1.0"
    assert ok(member, "getExtensionStatus", {"projectId": pid})["lastApprovedVersion"] == "1.1.0"

    # An old version again is refused, naming the version to go above.
    stale = _build(member, pid, zipped(files(version="1.0.5")))
    assert stale["status"] == "rejected"
    assert "is not above 1.1.0" in stale["report"]["problems"][0]["message"]
    builds = ok(member, "listExtensionBuilds", {"projectId": pid})
    assert builds["total"] == 4
    assert sorted(item["status"] for item in builds["items"]) == [
        "approved",
        "approved",
        "rejected",
        "rejected",
    ]
    listing = acme_client.get("/settings/extensions/").content.decode()
    assert "Ticket board" in listing and "1.1.0" in listing

    # A private project stays the author's: a viewer neither lists it nor reads its name.
    private = ok(
        member, "proposeBrief", {"name": "Secret planner", "brief": "Hidden", "visibility": "private"}
    )
    secret_id = private["project"]["id"]
    seen = {
        project["id"] for project in ok(viewer, "getExtensionBuilderOverview", {"limit": 100})["projects"]
    }
    assert pid in seen and secret_id not in seen
    assert "Secret" not in refused(viewer, "getExtensionStatus", {"projectId": secret_id})
    assert "Secret" not in refused(viewer, "composeExtensionBuildPrompt", {"projectId": secret_id})
    acme_client.force_login(viewer)
    page = acme_client.get("/settings/extensions/").content.decode()
    assert "Ticket board" in page and "Secret planner" not in page
