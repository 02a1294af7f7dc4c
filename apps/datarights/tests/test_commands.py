"""`export_personal_data` and `erase_personal_data`: the operators' command-line doors."""

import io
import json
import stat

import pytest
from django.core.management import CommandError, call_command
from django_tenants.utils import schema_context

from apps.accounts.models import Role, User
from apps.datarights import services
from apps.datarights.models import PersonalDataOperation
from apps.tenancy.models import Workspace

from .conftest import valid_body

pytestmark = pytest.mark.django_db

EMAIL = "ada.quillfeather@example.org"


@pytest.fixture
def ada(db):
    with schema_context("globex"):
        user = User.objects.create_user(email=EMAIL, role=Role.objects.get(key="viewer"))
    data = {**valid_body(), "received_at": "2025-03-14T09:26:53+00:00"}
    request, _created = services.data_request_receive(
        data=data, host="127.0.0.2", workspace=Workspace.objects.get(schema_name="globex")
    )
    return user, request


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_export_prints_the_document(ada):
    out, _err = run("export_personal_data", "--workspace", "globex", "--email", EMAIL)

    document = json.loads(out)
    assert document["workspace"]["schema"] == "globex"
    assert document["records"]["accounts.user"][0]["email"] == EMAIL


def test_export_writes_a_file_only_its_owner_can_read(ada, tmp_path):
    target = tmp_path / "ada.json"

    _out, err = run(
        "export_personal_data", "--workspace", "127.0.0.2", "--email", EMAIL, "--output", str(target)
    )

    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert json.loads(target.read_bytes())["person"]["email"] == EMAIL
    assert f"Wrote json to {target}: 2 records, 0 files" in err


def test_export_of_an_address_nobody_has_says_so_and_writes_nothing(db, tmp_path):
    target = tmp_path / "nobody.json"

    with pytest.raises(CommandError, match=r"Nothing in workspace globex is about nobody@example\.org"):
        run(
            "export_personal_data",
            "--workspace",
            "globex",
            "--email",
            "nobody@example.org",
            "--output",
            str(target),
        )

    assert not target.exists()


def test_export_links_the_request_it_answers(ada):
    _user, request = ada
    run(
        "export_personal_data",
        "--workspace",
        "globex",
        "--email",
        EMAIL,
        "--request",
        request.reference.lower(),
    )

    assert PersonalDataOperation.objects.get().data_request == request


def test_erase_does_nothing_without_yes(ada):
    with pytest.raises(CommandError, match="--yes"):
        run("erase_personal_data", "--workspace", "globex", "--email", EMAIL)

    with schema_context("globex"):
        assert User.objects.filter(email=EMAIL).exists()


def test_erase_removes_the_person_and_says_what(ada):
    _user, request = ada
    out, _err = run(
        "erase_personal_data",
        "--workspace",
        "globex",
        "--email",
        EMAIL,
        "--request",
        request.reference,
        "--yes",
    )

    assert "accounts.user: 1" in out and "datarights.datarequest: 1" in out
    assert "Erased 2 records in workspace globex." in out
    with schema_context("globex"):
        assert not User.objects.filter(email=EMAIL).exists()
    again, _err = run("erase_personal_data", "--workspace", "globex", "--email", EMAIL, "--yes")
    assert "Nothing of this person's was found" in again


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workspace", "nowhere", "--email", EMAIL], "No workspace"),
        (["--workspace", "public", "--email", EMAIL], "No workspace"),
        (["--workspace", "globex", "--email", "not-an-address"], "valid e-mail"),
        (["--workspace", "globex", "--email", EMAIL, "--request", "DR-0000-0000"], "No data-rights request"),
    ],
)
def test_bad_arguments_are_clear_errors(db, args, message):
    for command in ("export_personal_data", "erase_personal_data"):
        with pytest.raises(CommandError, match=message):
            run(command, *args, "--yes") if command == "erase_personal_data" else run(command, *args)


def test_erasing_the_last_owner_is_refused_with_the_reason(db):
    with pytest.raises(CommandError, match="last owner"):
        run("erase_personal_data", "--workspace", "globex", "--email", "owner@globex.example", "--yes")
