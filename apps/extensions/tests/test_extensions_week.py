"""What a week of building extensions found: a bundle whose manifest carries a NUL character
(written by a coding agent's tooling) answered a server error instead of a report, and erasing a
person left the logo and bundle bytes of their private projects on the storage."""



from apps.catalogue.testing import ok
from apps.extensions.models import Build
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
