"""The Extension Builder's tools through call_tool: per tool a normal call, bad input and a refusal;
who sees whose projects; and the scenarios: a resumable upload in three chunks (one resent, one
out of order), finalized, validated and approved; a zip bomb, a zip-slip archive and a version not
above the last refused; the logo sanitised; the frame served under its policy."""

import base64
import io
import json
import stat
import zipfile
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, person_without, refused
from apps.extensions import services
from apps.extensions.lib import bundle
from apps.extensions.models import Build, Project, Upload
from apps.extensions.tests.factories import (
    build_of,
    bundle_zip,
    chunk,
    declared,
    files,
    sha,
    zipped,
)

TOOLS = {
    "getExtensionBuilderOverview": ("extensions.view", {}),
    "proposeBrief": ("extensions.edit", {"name": "X", "brief": "Y"}),
    "createExtensionProject": ("extensions.edit", {}),
    "setExtensionMeta": ("extensions.edit", {"projectId": 1, "changes": {"category": "other"}}),
    "uploadExtensionLogo": ("extensions.edit", {"projectId": 1, "contentBase64": "AAAA"}),
    "getExtensionFrameSpec": ("extensions.view", {}),
    "getExtensionRules": ("extensions.view", {}),
    "getPlatformDataShapes": ("extensions.view", {}),
    "getSupportedLocales": ("extensions.view", {}),
    "beginBundleUpload": ("extensions.edit", {"projectId": 1, "size": 10, "sha256": "a" * 64}),
    "pushBundleChunks": (
        "extensions.edit",
        {"sessionId": "0" * 8 + "-0000-0000-0000-" + "0" * 12, "chunks": [chunk(b"x", 0)]},
    ),
    "finalizeChunkedUpload": ("extensions.edit", {"sessionId": "0" * 8 + "-0000-0000-0000-" + "0" * 12}),
    "validateExtensionBundle": ("extensions.edit", {"buildId": 1}),
    "getExtensionStatus": ("extensions.view", {"projectId": 1}),
    "listExtensionBuilds": ("extensions.view", {}),
    "composeExtensionBuildPrompt": ("extensions.view", {"projectId": 1}),
    "getMyExtensionBrief": ("extensions.view", {}),
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


@pytest.mark.parametrize("name", [name for name, (perm, _a) in TOOLS.items() if perm != "extensions.view"])
def test_viewers_only_read(people, name):
    with pytest.raises(ToolNotFound):
        call(people["viewer"], name, TOOLS[name][1])


def _begin(person, project, data):
    return ok(person, "beginBundleUpload", {"projectId": project.pk, "size": len(data), "sha256": sha(data)})[
        "upload"
    ]["sessionId"]


def test_three_chunks_one_resent_one_out_of_order_finalized_validated_approved(
    people, django_capture_on_commit_callbacks
):
    member = people["member"]
    project = declared(member, name="Ticket board")
    data = bundle_zip(version="1.2.0")
    third = len(data) // 3
    parts = [(0, data[:third]), (third, data[third : 2 * third]), (2 * third, data[2 * third :])]
    session = _begin(member, project, data)

    first = ok(member, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(parts[0][1], 0)]})
    assert (first["taken"], first["upload"]["received"], first["complete"]) == (1, third, False)
    # The third chunk before the second: refused with the offset expected, nothing kept.
    said = refused(
        member, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(parts[2][1], 2 * third)]}
    )
    assert f"offset {2 * third}" in said and f"expected is at offset {third}" in said
    assert "UPLOAD_OFFSET_MISMATCH" in said or "Send the chunk that starts at" in said
    # A chunk whose hash does not match its bytes: refused, nothing kept.
    bad = {**chunk(parts[1][1], third), "sha256": "0" * 64}
    assert "does not match its sha256" in refused(
        member, "pushBundleChunks", {"sessionId": session, "chunks": [bad]}
    )
    assert Upload.objects.get(token=session).received == third
    # The first chunk resent (a client that lost the answer) and the second, in one call.
    second = ok(
        member,
        "pushBundleChunks",
        {"sessionId": session, "chunks": [chunk(parts[0][1], 0), chunk(parts[1][1], third)]},
    )
    assert (second["resent"], second["taken"], second["upload"]["received"]) == (1, 1, 2 * third)
    assert "not all" not in refused(member, "finalizeChunkedUpload", {"sessionId": session}).lower()
    third_call = ok(
        member, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(parts[2][1], 2 * third)]}
    )
    assert third_call["complete"] is True

    with django_capture_on_commit_callbacks(execute=True):  # the chunks are deleted once it commits
        finalized = ok(member, "finalizeChunkedUpload", {"sessionId": session})["build"]
    assert (finalized["status"], finalized["size"], finalized["sha256"]) == (
        "validating",
        len(data),
        sha(data),
    )
    upload = Upload.objects.get(token=session)
    assert upload.status == "finalized" and upload.chunks.count() == 3
    assert all(not default_storage.exists(part.path) for part in upload.chunks.all())  # joined, then deleted
    assert "finalized" in refused(
        member, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(b"x", 0)]}
    )

    validated = ok(member, "validateExtensionBundle", {"buildId": finalized["id"]})
    assert validated["status"] == "approved", validated["report"]
    assert validated["version"] == "1.2.0" and validated["report"]["ok"] is True
    assert validated["report"]["files"] == 5 and validated["frameUrl"].endswith("/frame/index.html")
    assert "already approved" in refused(member, "validateExtensionBundle", {"buildId": finalized["id"]})

    status = ok(member, "getExtensionStatus", {"projectId": project.pk})
    assert status["lastApprovedVersion"] == "1.2.0" and status["latest"]["id"] == finalized["id"]
    assert status["openUploads"] == []


def test_a_whole_upload_with_the_wrong_hash_makes_no_build(people):
    member = people["member"]
    project = declared(member)
    data = bundle_zip()
    session = ok(
        member, "beginBundleUpload", {"projectId": project.pk, "size": len(data), "sha256": sha(b"other")}
    )["upload"]["sessionId"]
    ok(member, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(data, 0)]})
    said = refused(member, "finalizeChunkedUpload", {"sessionId": session})
    assert "not the declared sha256" in said and Build.objects.filter(project=project).count() == 0
    too_big = refused(
        member, "beginBundleUpload", {"projectId": project.pk, "size": 10**9, "sha256": "a" * 64}
    )
    assert "over the limit" in too_big
    short = _begin(member, project, data)
    ok(member, "pushBundleChunks", {"sessionId": short, "chunks": [chunk(data[:10], 0)]})
    assert f"10 of {len(data)} bytes received" in refused(
        member, "finalizeChunkedUpload", {"sessionId": short}
    )
    past = refused(member, "pushBundleChunks", {"sessionId": short, "chunks": [chunk(data + data, 10)]})
    assert "past its declared size" in past


def test_an_expired_upload_is_refused_and_swept(people):
    member = people["member"]
    project = declared(member)
    data = bundle_zip()
    session = _begin(member, project, data)
    ok(member, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(data[:10], 0)]})
    upload = Upload.objects.get(token=session)
    part = upload.chunks.get().path
    assert default_storage.exists(part)
    Upload.objects.filter(pk=upload.pk).update(expires_at=timezone.now() - timedelta(minutes=1))

    assert "expired" in refused(
        member, "pushBundleChunks", {"sessionId": session, "chunks": [chunk(data[10:], 10)]}
    )
    assert services.sweep_expired() == 1
    upload.refresh_from_db()
    assert upload.status == "expired" and not default_storage.exists(part) and upload.chunks.count() == 0
    assert "Start again with beginBundleUpload" in refused(
        member, "finalizeChunkedUpload", {"sessionId": session}
    )


def _rejected(person, project, data):
    build = build_of(person, project, data)
    answer = ok(person, "validateExtensionBundle", {"buildId": build.pk})
    assert answer["status"] == "rejected"
    return answer["report"]["problems"]


def _symlinked() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in files().items():
            archive.writestr(name, data)
        link = zipfile.ZipInfo("secrets")
        link.create_system = 3
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(link, "/etc/passwd")
    return buffer.getvalue()


def test_a_zip_bomb_a_zip_slip_and_a_symlink_are_refused_naming_the_entry(people):
    member = people["member"]
    project = declared(member)

    bomb = zipped({**files(), "padding.txt": b"\0" * (5 * 1024 * 1024)})
    problems = _rejected(member, project, bomb)
    assert [(p["code"], p["entry"]) for p in problems] == [("BUNDLE_ZIP_BOMB", "padding.txt")]
    assert "zip bomb" in problems[0]["message"]

    slip = zipped({**files(), "../../evil.sh": b"rm -rf /", "/etc/cron.d/x": b"x"})
    problems = _rejected(member, project, slip)
    assert {(p["code"], p["entry"]) for p in problems} == {
        ("BUNDLE_UNSAFE_PATH", "../../evil.sh"),
        ("BUNDLE_UNSAFE_PATH", "/etc/cron.d/x"),
    }
    assert "climbs out" in problems[0]["message"]

    problems = _rejected(member, project, _symlinked())
    assert [(p["code"], p["entry"]) for p in problems] == [("BUNDLE_SYMLINK", "secrets")]

    assert _rejected(member, project, b"not a zip at all")[0]["code"] == "BUNDLE_NOT_A_ZIP"
    assert not Build.objects.filter(project=project, status="approved").exists()


def test_caps_on_files_and_unpacked_size(monkeypatch, people):
    member = people["member"]
    project = declared(member)
    monkeypatch.setattr(bundle, "MAX_FILES", 5)
    problems = _rejected(member, project, zipped({**files(), "extra.txt": b"x"}))
    assert [(p["code"], p["entry"]) for p in problems] == [("BUNDLE_TOO_MANY_FILES", "extra.txt")]
    monkeypatch.setattr(bundle, "MAX_FILES", 300)
    monkeypatch.setattr(bundle, "MAX_UNPACKED_BYTES", 1000)
    stored = zipped({**files(), "big.bin": bytes(range(256)) * 8}, method=zipfile.ZIP_STORED)
    problems = _rejected(member, project, stored)
    assert [(p["code"], p["entry"]) for p in problems] == [("BUNDLE_UNPACKED_TOO_LARGE", "big.bin")]


def test_a_version_not_above_the_last_approved_is_refused(people):
    member = people["member"]
    project = declared(member)
    first = build_of(member, project, bundle_zip(version="2.0.0"))
    assert ok(member, "validateExtensionBundle", {"buildId": first.pk})["status"] == "approved"

    for version in ("2.0.0", "1.9.9", "2.0.0-rc.1"):
        problems = _rejected(member, project, bundle_zip(version=version))
        assert [p["code"] for p in problems] == ["EXTENSION_VERSION_NOT_ABOVE"]
        assert f"version {version} is not above 2.0.0" in problems[0]["message"]
    assert [p["code"] for p in _rejected(member, project, bundle_zip(version="two"))] == [
        "BUNDLE_MANIFEST_INVALID"
    ]
    assert (
        ok(
            member,
            "validateExtensionBundle",
            {"buildId": build_of(member, project, bundle_zip(version="2.1.0")).pk},
        )["status"]
        == "approved"
    )
    listed = ok(member, "listExtensionBuilds", {"projectId": project.pk, "status": "rejected"})
    assert listed["total"] == 4


def test_manifest_scopes_locales_and_code_are_checked(people):
    member = people["member"]
    project = declared(member)
    bad = files(
        scopes=["contact:read", "deal:write", "nothing:read"],
        locales={"default": "en", "supported": ["en", "pt-BR", "english!"]},
    )
    bad["locales/pt-BR.json"] = json.dumps({"name": "Quadro"}).encode()
    bad["app.js"] = b"const run = code => eval(code);\nfetch('/x');"
    bad["index.html"] = b'<script src="https://cdn.example.com/lib.js"></script>'
    problems = _rejected(member, project, zipped(bad))
    found = {(p["code"], p["entry"]) for p in problems}
    assert ("EXTENSION_SCOPE_NOT_DECLARED", "manifest.json") in found  # deal:write is a shape, not declared
    assert ("EXTENSION_SCOPE_UNKNOWN", "manifest.json") in found  # nothing:read names no shape
    assert ("BUNDLE_LOCALE_INVALID", "manifest.json") in found  # english!
    assert ("BUNDLE_LOCALE_INVALID", "locales/pt-BR.json") in found  # description, greeting missing
    assert ("BUNDLE_REMOTE_CODE", "app.js") in found and ("BUNDLE_REMOTE_CODE", "index.html") in found
    messages = " ".join(p["message"] for p in problems)
    assert "misses the keys description, greeting" in messages and "eval() is called" in messages

    no_entry = files()
    del no_entry["index.html"]
    assert [p["entry"] for p in _rejected(member, project, zipped(no_entry))] == ["index.html"]
    extra = files()
    extra["manifest.json"] = json.dumps({"name": "x", "version": "1.0.0"}).encode()
    problems = _rejected(member, project, zipped(extra))
    assert problems and all(p["code"] == "BUNDLE_MANIFEST_INVALID" for p in problems)
    assert "'entry' is a required property" in problems[0]["message"]


def test_details_are_checked_and_nothing_half_written(people):
    member = people["member"]
    made = ok(member, "proposeBrief", {"name": "  Ticket   board ", "brief": "Open tickets beside a contact"})
    project = made["project"]
    assert project["name"] == "Ticket board" and "setExtensionMeta" in made["next"]
    pid = project["id"]
    changed = ok(
        member,
        "setExtensionMeta",
        {
            "projectId": pid,
            "changes": {"category": "support", "scopes": ["contact:read"], "locales": ["en", "de-CH"]},
        },
    )
    assert changed["changed"] == ["category", "scopes", "locales"]
    assert changed["project"]["locales"] == ["en", "de-CH"]
    assert "not a BCP 47 tag" in refused(
        member, "setExtensionMeta", {"projectId": pid, "changes": {"category": "other", "locales": ["en_GB"]}}
    )
    assert "getPlatformDataShapes" in refused(
        member, "setExtensionMeta", {"projectId": pid, "changes": {"scopes": ["unicorn:read"]}}
    )
    assert "must be one of" in refused(
        member, "setExtensionMeta", {"projectId": pid, "changes": {"category": "x"}}
    )
    assert "Say what to change" in refused(member, "setExtensionMeta", {"projectId": pid, "changes": {}})
    kept = Project.objects.get(pk=pid)
    assert (kept.category, kept.locales) == ("support", ["en", "de-CH"])
    assert "was not found" in refused(member, "getExtensionStatus", {"projectId": 999999})
    assert "`brief`" in refused(member, "proposeBrief", {"name": "X"}) or "brief" in refused(
        member, "proposeBrief", {"name": "X"}
    )


def test_the_deprecated_create_answers_with_guidance_and_makes_nothing(people):
    before = Project.objects.count()
    answer = ok(people["member"], "createExtensionProject", {"name": "Ticket board"})
    assert (
        answer["deprecated"] is True and answer["created"] is False and answer["useInstead"] == "proposeBrief"
    )
    assert "proposeBrief" in answer["message"]
    assert answer["example"] == {"tool": "proposeBrief", "arguments": {"name": "Ticket board", "brief": "…"}}
    assert Project.objects.count() == before


def test_the_logo_svg_is_sanitised_and_bad_logos_refused(people):
    member = people["member"]
    project = declared(member)
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
        b' viewBox="0 0 10 10" onload="alert(1)"><script>alert(2)</script><circle cx="5" cy="5" r="4" fill="url(https://x.example/p)"'
        b' onclick="steal()"/><image href="https://tracker.example/t.png"/>'
        b'<use xlink:href="https://x.example/s#a"/>'
        b'<foreignObject><p>hi</p></foreignObject><rect width="2" height="2" fill="#123456"/></svg>'
    )
    answer = ok(
        member,
        "uploadExtensionLogo",
        {"projectId": project.pk, "contentBase64": base64.b64encode(svg).decode()},
    )
    assert answer["type"] == "svg" and answer["removed"] >= 6
    project.refresh_from_db()
    with default_storage.open(project.logo, "rb") as kept:
        stored = kept.read().decode()
    for gone in ("script", "onload", "onclick", "tracker.example", "x.example", "foreignObject"):
        assert gone not in stored
    assert 'fill="#123456"' in stored and "<circle" in stored

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 262_200).decode()  # over 256 KiB, within the schema
    assert "too large" in refused(
        member, "uploadExtensionLogo", {"projectId": project.pk, "contentBase64": png}
    )
    gif = base64.b64encode(b"GIF89a....").decode()
    assert "only PNG and SVG" in refused(
        member, "uploadExtensionLogo", {"projectId": project.pk, "contentBase64": gif}
    )
    assert "not base64" in refused(
        member, "uploadExtensionLogo", {"projectId": project.pk, "contentBase64": "@@@@"}
    )
    assert "well-formed" in refused(
        member,
        "uploadExtensionLogo",
        {"projectId": project.pk, "contentBase64": base64.b64encode(b"<svg").decode()},
    )


def test_reference_tools_answer(people):
    viewer = people["viewer"]
    spec = ok(viewer, "getExtensionFrameSpec")
    assert (
        "sandbox allow-scripts" in spec["contentSecurityPolicy"]
        and "default-src 'none'" in spec["contentSecurityPolicy"]
    )
    assert {message["type"] for message in spec["messages"]} >= {"ready", "request", "response"}
    rules = ok(viewer, "getExtensionRules")
    assert rules["manifestSchema"]["required"] == ["name", "version", "entry", "scopes", "locales"]
    assert rules["maxRatio"] == 100
    shapes = ok(viewer, "getPlatformDataShapes", {"query": "contact"})["shapes"]
    contact = next(shape for shape in shapes if shape["shape"] == "contact")
    assert contact["scopes"] == ["contact:read", "contact:write"] and "deleted_at" not in contact["fields"]
    locales = ok(viewer, "getSupportedLocales", {"query": "portuguese brazil"})
    assert {"tag": "pt-BR", "name": "Portuguese (Brazil)"} in locales["locales"]
    assert locales["requiredKeys"] == ["name", "description"]
    assert "`limit`" in refused(viewer, "getSupportedLocales", {"limit": 5000})


def test_private_projects_stay_their_owners(people):
    member, viewer = people["member"], people["viewer"]
    private = declared(member, name="Secret board", brief="Hidden idea", visibility="private")
    build = build_of(member, private)
    declared(member, name="Shared board")

    seen = ok(viewer, "getExtensionBuilderOverview", {"limit": 100})
    names = {project["name"] for project in seen["projects"]}
    assert "Shared board" in names and "Secret board" not in names
    said = refused(viewer, "getExtensionStatus", {"projectId": private.pk})
    assert said == refused(viewer, "getExtensionStatus", {"projectId": 999999}).replace(
        "999999", str(private.pk)
    )
    assert "Secret" not in said
    assert build.pk not in {b["id"] for b in ok(viewer, "listExtensionBuilds", {"limit": 100})["items"]}
    assert "was not found" in refused(viewer, "composeExtensionBuildPrompt", {"projectId": private.pk})
    assert "was not found" in refused(viewer, "getMyExtensionBrief", {"projectId": private.pk})
    assert ok(viewer, "getMyExtensionBrief")["briefs"] == []
    # The area's admins see every project; the briefs read as their proposer's.
    assert private.pk in {
        p["id"] for p in ok(people["admin"], "getExtensionBuilderOverview", {"limit": 100})["projects"]
    }
    mine = ok(member, "getMyExtensionBrief")["briefs"]
    assert {brief["name"] for brief in mine} >= {"Secret board", "Shared board"}
    assert next(brief for brief in mine if brief["name"] == "Secret board")["status"] == "validating"


def test_the_build_prompt_carries_the_brief_as_data_and_the_rules(people):
    member = people["member"]
    project = declared(member, name="Ticket board", brief="Show open tickets beside a contact")
    approved = build_of(member, project, bundle_zip(version="1.4.0"))
    services.build_validate(actor=member, build=approved)
    prompt = ok(member, "composeExtensionBuildPrompt", {"projectId": project.pk})["prompt"]
    assert "<brief>\nShow open tickets beside a contact\n</brief>" in prompt
    assert '"version": "1.5.0"' in prompt and '"contact:read"' in prompt and "sandbox=" in prompt


def test_the_frame_is_served_with_its_policy_and_the_page_shows_reports(people, acme_client):
    member = people["member"]
    project = declared(member, name="Ticket board")
    build = build_of(member, project)
    services.build_validate(actor=member, build=build)
    rejected = build_of(member, project, zipped({**files(version="9.0.0"), "../x": b"x"}))
    services.build_validate(actor=member, build=rejected)
    acme_client.force_login(member)

    served = acme_client.get(f"/extensions/builds/{build.pk}/frame/index.html")
    assert served.status_code == 200 and served["Content-Type"].startswith("text/html")
    policy = served["Content-Security-Policy"]
    assert (
        "default-src 'none'" in policy
        and "sandbox allow-scripts" in policy
        and "connect-src 'none'" in policy
    )
    assert served["X-Frame-Options"] == "SAMEORIGIN" and served["X-Content-Type-Options"] == "nosniff"
    assert acme_client.get(f"/extensions/builds/{build.pk}/frame/missing.js").status_code == 404
    assert acme_client.get(f"/extensions/builds/{rejected.pk}/frame/index.html").status_code == 404

    listing = acme_client.get("/settings/extensions/").content.decode()
    assert "Ticket board" in listing and "approved" in listing and "rejected" in listing
    report = acme_client.get(f"/settings/extensions/builds/{rejected.pk}/").content.decode()
    assert "BUNDLE_UNSAFE_PATH" in report and "../x" in report

    # Members do not publish; an admin publishes an approved build, once.
    assert acme_client.post(f"/settings/extensions/builds/{build.pk}/publish/").status_code == 403
    acme_client.force_login(people["admin"])
    assert acme_client.post(f"/settings/extensions/builds/{build.pk}/publish/").status_code == 302
    build.refresh_from_db()
    assert build.status == "published" and build.published_at is not None
    again = acme_client.post(
        f"/settings/extensions/builds/{rejected.pk}/publish/", HTTP_REFERER="/settings/extensions/"
    )
    rejected.refresh_from_db()
    assert again.status_code in (302, 409) and rejected.status == "rejected"
