"""Export then erasure of one person's data in a workspace, across every app that exists
(accounts: the user, tokens, sessions; datarights: the requests they sent), SPEC 10.3."""

import io
import json
import logging
import zipfile

import pytest
from axes.models import AccessAttempt
from django.contrib.sessions.models import Session
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, models
from django.http import HttpRequest
from django.test import Client
from django_tenants.utils import schema_context

from apps.accounts.models import PersonalAccessToken, Role, User
from apps.accounts.services import access_token_create
from apps.core import privacy
from apps.datarights import services
from apps.datarights.errors import ErasureRefused
from apps.datarights.models import DataRequest, PersonalDataOperation
from apps.datarights.personal_data import personal_data_erase, personal_data_export

pytestmark = pytest.mark.django_db

EMAIL = "erin.vale@acme.example"
NAME = "Erin Vale"


def request_body(**changes):
    body = {
        "type": "delete",
        "name": NAME,
        "email": EMAIL,
        "account": "acme-erin",
        "details": "Close my account and erase what you hold.",
        "locale": "en-IE",
        "country": "IE",
        "received_at": "2025-03-14T09:26:53+00:00",
    }
    body.update(changes)
    return body


@pytest.fixture
def erin(acme, globex):
    """A member of Acme with a token, a signed-in session, and two requests: one received by
    Acme's host, one by Globex's. Beside her, another member with a token of their own."""
    member = Role.objects.get(key="member")
    erin = User.objects.create_user(email=EMAIL, password="pw-erin-123", full_name=NAME, role=member)
    access_token_create(user=erin, name="laptop")
    other = User.objects.create_user(email="olaf.other@acme.example", role=member)
    access_token_create(user=other, name="theirs")
    assert Client(HTTP_HOST="127.0.0.1").login(request=HttpRequest(), username=EMAIL, password="pw-erin-123")
    at_acme, _ = services.data_request_receive(data=request_body(), host="127.0.0.1", workspace=acme)
    at_globex, _ = services.data_request_receive(
        data=request_body(type="access"), host="127.0.0.2", workspace=globex
    )
    return {"user": erin, "other": other, "at_acme": at_acme, "at_globex": at_globex}


def export_of(workspace, email=EMAIL, **kwargs):
    out = io.BytesIO()
    summary = personal_data_export(workspace=workspace, email=email, out=out, performed_by="test", **kwargs)
    return summary, out.getvalue()


def test_the_export_holds_everything_about_the_person_and_nothing_secret(acme, erin):
    summary, content = export_of(acme)

    assert (summary.format, summary.content_type) == ("json", "application/json")
    document = json.loads(content)
    assert document["format"] == "atrium-personal-data/1"
    assert document["workspace"] == {"schema": "acme", "name": "Acme"}
    assert document["person"] == {"email": EMAIL, "user_id": erin["user"].pk}
    records = document["records"]
    [user] = records["accounts.user"]
    assert (user["email"], user["full_name"], user["role"], user["has_password"]) == (
        EMAIL,
        NAME,
        "member",
        True,
    )
    [token] = records["accounts.personalaccesstoken"]
    assert token["name"] == "laptop" and token["user_id"] == erin["user"].pk
    [session] = records["sessions.session"]
    assert "expire_date" in session
    # Only the request Acme's host received; Globex's is Globex's business.
    [data_request] = records["datarights.datarequest"]
    assert data_request["reference"] == erin["at_acme"].reference
    assert data_request["details"] == "Close my account and erase what you hold."
    # Secrets are not the person's information: no password hash, token digest or fingerprint.
    text = content.decode()
    assert erin["user"].password not in text
    assert PersonalAccessToken.objects.get(user=erin["user"]).digest not in text
    assert erin["at_acme"].fingerprint not in text
    # Nobody else's data.
    assert "olaf.other" not in text
    assert summary.counts == {
        "accounts.personalaccesstoken": 1,
        "accounts.user": 1,
        "datarights.datarequest": 1,
        "sessions.session": 1,
    }


def test_an_export_is_recorded_without_saying_whose(acme, erin):
    summary, _content = export_of(acme, data_request=erin["at_acme"])

    operation = PersonalDataOperation.objects.get(pk=summary.operation_id)
    assert (operation.kind, operation.outcome, operation.schema_name) == ("export", "done", "acme")
    assert operation.data_request == erin["at_acme"]
    assert operation.counts["accounts.user"] == 1
    recorded = json.dumps([operation.counts, operation.performed_by, operation.problem])
    assert EMAIL not in recorded and NAME not in recorded


def test_an_address_nobody_has_exports_an_empty_document(acme, erin):
    summary, content = export_of(acme, email="nobody@acme.example")

    assert summary.counts == {}
    assert all(rows == [] for rows in json.loads(content)["records"].values())


def test_erasure_reaches_every_app_and_leaves_everyone_else_alone(acme, erin, caplog):
    erin_id = erin["user"].pk
    with caplog.at_level(logging.DEBUG):
        counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert counts == {
        "accounts.personalaccesstoken": 1,
        "accounts.user": 1,
        "datarights.datarequest": 1,
        "sessions.session": 1,
    }
    assert not User.objects.filter(email=EMAIL).exists()
    assert not PersonalAccessToken.objects.filter(user_id=erin_id).exists()
    assert not [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(erin_id)]
    # The request stays as the record that it was handled; who sent it does not.
    at_acme = DataRequest.objects.get(pk=erin["at_acme"].pk)
    assert (at_acme.name, at_acme.email, at_acme.account, at_acme.details, at_acme.fingerprint) == ("",) * 5
    assert at_acme.erased_at is not None
    assert (at_acme.reference, at_acme.type, at_acme.host) == (
        erin["at_acme"].reference,
        "delete",
        "127.0.0.1",
    )
    # Another workspace's records and another person's are untouched.
    assert DataRequest.objects.get(pk=erin["at_globex"].pk).email == EMAIL
    assert PersonalAccessToken.objects.filter(user=erin["other"]).count() == 1
    assert User.objects.filter(email="owner@acme.example").exists()
    with schema_context("globex"):
        assert User.objects.filter(email="owner@globex.example").exists()
    # Recorded, and logged, without the person.
    operation = PersonalDataOperation.objects.get(kind="erase")
    assert (operation.outcome, operation.counts) == ("done", counts)
    text = " ".join(record.getMessage() for record in caplog.records)
    assert "personal data erased in workspace acme" in text
    assert EMAIL not in text and NAME not in text


def test_after_erasure_an_export_finds_nothing_and_a_second_erasure_nothing_more(acme, erin):
    personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    summary, _content = export_of(acme)
    assert summary.counts == {}
    assert personal_data_erase(workspace=acme, email=EMAIL, performed_by="test") == {}


def test_failed_sign_ins_are_exported_and_erased_with_the_person(acme, erin):
    # The throttle (apps.accounts.throttle) keeps failed sign-ins by address; one is someone else's.
    browser = Client(HTTP_HOST="127.0.0.1")
    for email in (EMAIL.upper(), EMAIL, "olaf.other@acme.example"):
        browser.post("/accounts/sign-in/", {"username": email, "password": "not-it"})

    _summary, content = export_of(acme)
    [attempt] = json.loads(content)["records"]["axes.accessattempt"]
    counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert (attempt["username"], attempt["ip_address"], attempt["failures_since_start"]) == (
        EMAIL,
        "127.0.0.1",
        2,
    )
    assert "not-it" not in content.decode()
    assert counts["axes.accessattempt"] == 1
    # (Other tests' committed attempts may be there too: only this test's addresses are looked at.)
    tried = AccessAttempt.objects.filter(username__in=[EMAIL, "olaf.other@acme.example"])
    assert list(tried.values_list("username", flat=True)) == ["olaf.other@acme.example"]


class BrokenApp(privacy.Handler):
    """An app whose erasure fails, to see what the first phase left."""

    label = "tests.broken"

    def erase(self, subject):
        raise RuntimeError("storage unavailable")


def test_records_are_soft_deleted_first_so_a_failed_erasure_leaves_the_person_disabled(acme, erin):
    with privacy.temporarily(BrokenApp()), pytest.raises(RuntimeError):
        personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    # Phase one stands: disabled, signed out, tokens revoked...
    user = User.objects.get(email=EMAIL)
    assert user.is_active is False
    assert PersonalAccessToken.objects.get(user=user).revoked_at is not None
    assert not [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(user.pk)]
    # ...phase two is all or nothing: nothing was half erased.
    assert DataRequest.objects.get(pk=erin["at_acme"].pk).email == EMAIL
    failed = PersonalDataOperation.objects.get(kind="erase")
    assert (failed.outcome, failed.problem) == ("failed", "RuntimeError")

    # Run again once the app is fixed: it finishes the job.
    counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")
    assert counts["accounts.user"] == 1
    assert not User.objects.filter(email=EMAIL).exists()


def test_the_workspaces_last_owner_cannot_be_erased(acme, erin):
    with pytest.raises(ErasureRefused) as refused:
        personal_data_erase(workspace=acme, email="owner@acme.example", performed_by="test")

    assert "last owner" in str(refused.value.message)
    owner = User.objects.get(email="owner@acme.example")
    assert owner.is_active is True
    assert PersonalDataOperation.objects.get(kind="erase").outcome == "refused"


def test_an_owner_with_another_owner_beside_them_can_be_erased(acme, erin):
    User.objects.filter(pk=erin["user"].pk).update(role=Role.objects.get(key="owner"))

    assert personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")["accounts.user"] == 1


class Attachments(privacy.Handler):
    """Stands for a files area: the person's files in the workspace's own storage."""

    label = "tests.attachments"

    def __init__(self, owner_email, names):
        self.owner_email, self.names = owner_email, names

    def files(self, subject):
        if subject.email != self.owner_email:
            return []
        return [
            privacy.ExportFile(
                f"{self.label}/{name.rsplit('/', 1)[-1]}", lambda name=name: default_storage.open(name)
            )
            for name in self.names
        ]

    def erase(self, subject):
        if subject.email != self.owner_email:
            return 0
        for name in self.names:
            default_storage.delete(name)
        return len(self.names)


def test_an_export_with_files_is_a_zip_of_the_document_and_the_files(acme, erin):
    with schema_context("acme"):
        stored = default_storage.save("tests/erin-cv.txt", ContentFile(b"Erin's CV\n"))
    try:
        with privacy.temporarily(Attachments(EMAIL, [stored])):
            summary, content = export_of(acme)
            assert (summary.format, summary.files) == ("zip", 1)
            assert summary.filename.endswith(".zip")
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                names = archive.namelist()
                document = json.loads(archive.read("personal-data.json"))
                payload = archive.read(f"files/tests.attachments/{stored.rsplit('/', 1)[-1]}")
            assert payload == b"Erin's CV\n"
            assert document["files"] == [name for name in names if name.startswith("files/")]

            personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")
            with schema_context("acme"):
                assert not default_storage.exists(stored)
    finally:
        with schema_context("acme"):
            default_storage.delete(stored)


class Upload(models.Model):
    """Stands for a files area's model (an app label outside the project: no registration needed)."""

    owner = models.ForeignKey(User, on_delete=models.CASCADE)
    document = models.FileField(upload_to="uploads/")

    class Meta:
        app_label = "test_files_area"

    def __str__(self) -> str:
        return self.document.name


@pytest.fixture
def upload_table(acme):
    # DDL is transactional in PostgreSQL: the table goes with the test's rollback.
    with connection.schema_editor() as editor:
        editor.create_model(Upload)
    return Upload


def test_a_registered_models_files_are_exported_in_the_zip_and_deleted_on_erasure(
    acme, erin, upload_table, django_capture_on_commit_callbacks
):
    upload = Upload(owner=erin["user"])
    upload.document.save("erin-passport.txt", ContentFile(b"scan\n"))
    stored = upload.document.name
    try:
        with privacy.temporarily(privacy.ModelHandler(Upload, user="owner")):
            summary, content = export_of(acme)
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                document = json.loads(archive.read("personal-data.json"))
                payload = archive.read(
                    f"files/test_files_area.upload/{upload.pk}/document/{stored.rsplit('/', 1)[-1]}"
                )
            assert (summary.format, summary.files, payload) == ("zip", 1, b"scan\n")
            assert document["records"]["test_files_area.upload"] == [
                {"id": upload.pk, "owner_id": erin["user"].pk, "document": stored}
            ]

            with django_capture_on_commit_callbacks(execute=True):
                counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")
                # The commit may come later, under another schema: the files are still Acme's.
                connection.set_schema_to_public()
            connection.set_tenant(acme)
            assert counts["test_files_area.upload"] == 1
            assert not default_storage.exists(stored)
    finally:
        default_storage.delete(stored)


def test_erasure_reaches_the_persons_contact_records_and_cuts_them_from_the_tool_call_log(acme, erin):
    from django.utils import timezone

    from apps.catalogue.models import ToolCall
    from apps.contacts.models import Contact, ContactEvent, OwnershipChange
    from apps.contacts.services import contact_create

    owner = User.objects.get(email="owner@acme.example")
    # Erin is also a contact of the workspace (made through the contacts service, with its
    # history), and she owns a contact about someone else, which stays the workspace's.
    as_contact, _conflicts = contact_create(
        actor=owner, fields={"first_name": "Erin", "last_name": "Vale", "email": EMAIL.upper()}
    )
    theirs, _conflicts = contact_create(
        actor=erin["user"], fields={"first_name": "Quentin", "email": "quentin@example.org"}
    )
    call = ToolCall.objects.create(
        at=timezone.now(),
        user=erin["user"],
        scheme="oauth",
        credential="oauth:7",
        client="Erin's laptop",
        tool="getContact",
        outcome="ok",
        duration_ms=3.5,
    )

    _summary, content = export_of(acme)
    records = json.loads(content)["records"]
    assert [row["id"] for row in records["contacts.contact"]] == [as_contact.pk]
    assert records["contacts.contactevent"][0]["kind"] == "created"
    assert records["catalogue.toolcall"][0]["tool"] == "getContact"

    counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert counts["contacts.contact"] == 1 and counts["contacts.contactevent"] == 1
    assert counts["catalogue.toolcall"] == 1
    assert not Contact.objects.filter(pk=as_contact.pk).exists()
    assert not ContactEvent.objects.filter(contact_id=as_contact.pk).exists()
    assert not OwnershipChange.objects.filter(contact_id=as_contact.pk).exists()
    # Her contact about someone else stays, without her as its owner.
    theirs.refresh_from_db()
    assert theirs.owner_id is None and theirs.deleted_at is None
    # The log keeps that a call happened, not by whom.
    call.refresh_from_db()
    assert (call.user_id, call.credential, call.client, call.tool) == (None, "", "", "getContact")


def test_a_contact_is_soft_deleted_in_the_first_phase(acme, erin):
    from apps.contacts.models import Contact
    from apps.contacts.services import contact_create

    as_contact, _conflicts = contact_create(
        actor=User.objects.get(email="owner@acme.example"), fields={"first_name": "Erin", "email": EMAIL}
    )
    with privacy.temporarily(BrokenApp()), pytest.raises(RuntimeError):
        personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert Contact.objects.get(pk=as_contact.pk).deleted_at is not None


@pytest.fixture
def erin_credentials(acme, erin):
    """Erin's API key, and an OAuth client's access and refresh tokens with its connection."""
    import secrets
    from datetime import timedelta

    from django.utils import timezone
    from oauth2_provider.models import (
        get_access_token_model,
        get_application_model,
        get_refresh_token_model,
        set_token_value,
    )

    from apps.apikeys.services import api_key_create
    from apps.oauth.models import Connection

    key = api_key_create(user=erin["user"], label="erin's script")
    client = get_application_model().objects.create(
        name="Editor",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9/cb",
        registration_source="dcr",
    )
    access = get_access_token_model()(
        user=erin["user"],
        application=client,
        scope="mcp",
        resource=["http://127.0.0.1:8000/api/mcp"],
        expires=timezone.now() + timedelta(hours=1),
    )
    raw_access = secrets.token_urlsafe(24)
    set_token_value(access, raw_access)
    access.save()
    refresh = get_refresh_token_model()(user=erin["user"], application=client, access_token=access)
    set_token_value(refresh, secrets.token_urlsafe(24))
    refresh.save()
    Connection.objects.create(user=erin["user"], application=client, scope="mcp")
    return {"key": key, "client": client, "access": access, "raw_access": raw_access, "refresh": refresh}


def oauth_principal(raw_token):
    from apps.core import credentials
    from apps.core.credentials import CredentialRequest

    request = CredentialRequest(
        headers={"authorization": f"Bearer {raw_token}"}, base_url="http://127.0.0.1:8000", door="mcp"
    )
    return credentials.authenticate(request)


def test_the_first_phase_disables_every_key_and_token_of_the_person(acme, erin, erin_credentials):
    from apps.apikeys.models import ApiKey
    from apps.core.errors import AppError
    from apps.oauth.models import Connection

    assert oauth_principal(erin_credentials["raw_access"]).user == erin["user"]

    with privacy.temporarily(BrokenApp()), pytest.raises(RuntimeError):
        personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert ApiKey.objects.get(pk=erin_credentials["key"].key.pk).revoked_at is not None
    erin_credentials["refresh"].refresh_from_db()
    assert erin_credentials["refresh"].revoked is not None
    assert Connection.objects.get(user=erin["user"]).revoked_at is not None
    with pytest.raises(AppError):
        oauth_principal(erin_credentials["raw_access"])


def test_erasure_removes_every_key_and_token_and_exports_none_of_their_secrets(acme, erin, erin_credentials):
    from oauth2_provider.models import get_access_token_model, get_refresh_token_model

    from apps.apikeys.models import ApiKey
    from apps.oauth.models import Connection

    _summary, content = export_of(acme)
    records = json.loads(content)["records"]
    assert records["apikeys.apikey"][0]["label"] == "erin's script"
    assert "digest" not in records["apikeys.apikey"][0]
    assert "signing_secret_encrypted" not in records["apikeys.apikey"][0]
    assert "token" not in records["oauth2_provider.accesstoken"][0]
    assert records["oauth.connection"][0]["scope"] == "mcp"
    text = content.decode()
    assert erin_credentials["key"].raw_key not in text and erin_credentials["key"].signing_secret not in text
    assert erin_credentials["raw_access"] not in text

    counts = personal_data_erase(workspace=acme, email=EMAIL, performed_by="test")

    assert counts["apikeys.apikey"] == 1 and counts["oauth2_provider.accesstoken"] == 1
    assert not ApiKey.objects.filter(user_id=erin["user"].pk).exists()
    assert not get_access_token_model().objects.filter(pk=erin_credentials["access"].pk).exists()
    assert not get_refresh_token_model().objects.filter(pk=erin_credentials["refresh"].pk).exists()
    assert not Connection.objects.filter(application=erin_credentials["client"]).exists()
