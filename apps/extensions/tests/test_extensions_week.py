"""What a week of building extensions found: a bundle whose manifest carries a NUL character
(written by a coding agent's tooling) answered a server error instead of a report, and erasing a
person left the logo and bundle bytes of their private projects on the storage; a null visibility
(null clears a field) made a private project the whole workspace's."""

import base64

from django.core.files.storage import default_storage

from apps.catalogue.testing import ok, refused
from apps.core.workspaces import current_workspace
from apps.datarights.personal_data import personal_data_erase
from apps.extensions import services
from apps.extensions.models import Build, Project
from apps.extensions.tests.factories import build_of, declared, files, zipped

SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64"/></svg>'


def test_a_manifest_with_a_nul_character_is_validated_not_a_server_error(people):
    member = people["member"]
    project = declared(member)
    build = build_of(member, project, zipped(files(name="Board\u0000", description="A\u0000 board")))
    checked = ok(member, "validateExtensionBundle", {"buildId": build.pk})
    assert checked["status"] == "approved"
    stored = Build.objects.get(pk=build.pk)
    assert stored.manifest["name"] == "Board" and "\x00" not in str(stored.report)


def test_erasing_a_person_deletes_their_private_projects_files(people, django_capture_on_commit_callbacks):
    owner = people["member"]
    project = declared(owner, visibility="private")
    services.project_set_logo(actor=owner, project=project, content_base64=base64.b64encode(SVG).decode())
    build = build_of(owner, project)
    shared = declared(owner)
    kept = build_of(owner, shared)
    project.refresh_from_db()
    names = [project.logo, build.bundle]
    assert all(default_storage.exists(name) for name in names)
    with django_capture_on_commit_callbacks(execute=True):
        personal_data_erase(workspace=current_workspace(), email=owner.email, performed_by="admin@acme.test")
    assert not Project.objects.filter(pk=project.pk).exists()
    assert not any(default_storage.exists(name) for name in names)
    # The workspace's project stays, with its bundle.
    assert default_storage.exists(kept.bundle) and Project.objects.get(pk=shared.pk).owner_id is None


def test_a_null_visibility_does_not_make_a_private_project_the_workspaces(people):
    member, viewer = people["member"], people["viewer"]
    project = declared(member, name="Salary review board", visibility="private")
    message = refused(member, "setExtensionMeta", {"projectId": project.pk, "changes": {"visibility": None}})
    assert "visibility" in message
    assert Project.objects.get(pk=project.pk).visibility == "private"
    assert "was not found" in refused(viewer, "getExtensionStatus", {"projectId": project.pk})
