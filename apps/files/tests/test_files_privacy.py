"""A person's files and documents in a data-rights export and erasure (docs/privacy.md)."""

import io
import json
import zipfile

from django.contrib.auth.hashers import make_password

from apps.accounts.models import Role, User
from apps.core import sharing
from apps.datarights.personal_data import personal_data_erase, personal_data_export
from apps.documents.models import Document, DocumentShare, DocumentVersion
from apps.documents.tests.factories import DocumentFactory
from apps.files import blobs
from apps.files.models import Delivery, File, FileShare
from apps.files.tests.factories import FileFactory


def test_export_holds_the_persons_files_with_their_bytes_and_documents(acme):
    person = User.objects.create(
        email="leaver@acme.example", role=Role.objects.get(key="member"), password=make_password(None)
    )
    file = FileFactory(actor=person, name="cv.txt", text="my cv", visibility="private")
    DocumentFactory(actor=person, title="My notes", content="notes")
    out = io.BytesIO()

    personal_data_export(workspace=acme, email=person.email, out=out, performed_by="command")

    archive = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    document = json.loads(archive.read("personal-data.json"))
    assert [row["name"] for row in document["records"]["files.file"]] == ["cv.txt"]
    assert [row["title"] for row in document["records"]["documents.document"]] == ["My notes"]
    assert archive.read(f"files/files.file/{file.pk}/cv.txt") == b"my cv"


def test_erasure_removes_private_files_and_documents_and_keeps_the_workspaces(
    acme, django_capture_on_commit_callbacks
):
    member = User.objects.get(email="member@acme.example")
    person = User.objects.create(
        email="leaver2@acme.example", role=Role.objects.get(key="member"), password=make_password(None)
    )
    private = FileFactory(actor=person, name="private.txt", visibility="private")
    shared = FileFactory(actor=person, name="team.txt")
    mine = FileFactory(actor=member, name="shared-with-leaver.txt", visibility="private")
    sharing.change(mine, actor=member, person_email=person.email, access="view", visibility=None)
    Delivery.objects.create(file=shared, sent_by=member, recipients=["leaver2@acme.example"], subject="x")
    private_doc = DocumentFactory(actor=person, title="Diary", visibility="private")
    team_doc = DocumentFactory(actor=person, title="Team plan")

    with django_capture_on_commit_callbacks(execute=True):
        personal_data_erase(workspace=acme, email=person.email, performed_by="command")

    assert not File.objects.filter(pk=private.pk).exists()
    assert not blobs.exists(private.blob)
    assert File.objects.get(pk=shared.pk).owner_id is None
    assert not FileShare.objects.filter(user_id=person.pk).exists()
    assert not Delivery.objects.exists()
    assert not Document.objects.filter(pk=private_doc.pk).exists()
    assert not DocumentVersion.objects.filter(document_id=private_doc.pk).exists()
    assert Document.objects.get(pk=team_doc.pk).owner_id is None
    assert not DocumentShare.objects.filter(user_id=person.pk).exists()
