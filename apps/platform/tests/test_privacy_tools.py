"""A person's data through the Platform area's tools (examinePersonalData, erasePersonalData): what
the data-rights export and erasure do (apps.datarights, through apps.core.personaldata), per tool a
normal call, bad input and a refusal; an erased person's records gone from other tools' answers;
the import plans and background exports that quote or belong to the person erased with them, and
old import plans purged nightly."""

import io
import json
import secrets
import zipfile
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import Role, User
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.contacts.models import Contact
from apps.contacts.tests.factories import ContactFactory
from apps.datarights.models import PersonalDataOperation
from apps.files import services as file_services
from apps.files.models import File
from apps.platform import tasks
from apps.platform.models import DataExport, DataImport

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def colleague(role: str = "member") -> User:
    return User.objects.create_user(
        email=f"subject-{secrets.token_hex(4)}@acme.example",
        password="atrium-demo",
        role=Role.objects.get(key=role),
        full_name="Sam Subject",
    )


class Asked:
    """An `elicit` that confirms and counts how often it was asked."""

    def __init__(self) -> None:
        self.times = 0

    def __call__(self, message, schema):  # type: ignore[no-untyped-def]
        self.times += 1
        return confirmed(message, schema)


def _held(answer):  # type: ignore[no-untyped-def]
    return {kind["kind"]: kind for kind in answer["kinds"]}


# --- who may call them ----------------------------------------------------------------------------


@pytest.mark.parametrize("role", ["member", "viewer"])
def test_members_and_viewers_are_not_offered_the_tools(people, role):
    subject = colleague()
    for name, arguments in (
        ("examinePersonalData", {"email": subject.email}),
        ("erasePersonalData", {"email": subject.email}),
    ):
        with pytest.raises(ToolNotFound):
            call(people[role], name, arguments, **CONFIRM)
    assert User.objects.filter(pk=subject.pk, is_active=True).exists()


# --- examine --------------------------------------------------------------------------------------


def test_examine_shows_what_is_held_per_area_and_kind(people):
    subject = colleague()
    about = ContactFactory(
        actor=people["owner"], first_name="Sam", last_name="Mentioned", email=subject.email
    )
    outsider = "only-mentioned@elsewhere.example"
    ContactFactory(actor=people["owner"], first_name="Olive", email=outsider)

    answer = ok(people["admin"], "examinePersonalData", {"email": f"  {subject.email.upper()} "})

    held = _held(answer)
    assert answer["email"] == subject.email and answer["userId"] == subject.pk
    assert held["contacts.contact"]["count"] == 1 and held["contacts.contact"]["area"] == "contacts"
    assert held["contacts.contact"]["titles"] and held["accounts.user"]["count"] == 1
    assert answer["total"] == sum(kind["count"] for kind in answer["kinds"]) >= 2
    assert answer["fileId"] is None
    # By the person instead of the address: the same.
    assert _held(ok(people["admin"], "examinePersonalData", {"userId": subject.pk})) == held
    # Someone only mentioned: no person, their contact.
    mentioned = ok(people["admin"], "examinePersonalData", {"email": outsider})
    assert mentioned["userId"] is None and _held(mentioned)["contacts.contact"]["count"] == 1
    assert {kind["area"] for kind in mentioned["kinds"]} == {"contacts"}
    # Looking changes nothing, and is no data-rights export.
    assert Contact.objects.filter(pk=about.pk, deleted_at__isnull=True).exists()
    assert not PersonalDataOperation.objects.filter(schema_name="acme").exists()


def test_examine_as_a_file_saves_the_full_export_private_to_the_caller(people):
    subject = colleague()
    ContactFactory(actor=people["owner"], first_name="Sam", email=subject.email)

    answer = ok(people["admin"], "examinePersonalData", {"email": subject.email, "asFile": True})

    stored = File.objects.get(pk=answer["fileId"])
    assert stored.owner_id == people["admin"].pk and stored.visibility == "private"
    assert stored.name == answer["fileName"] and stored.name.startswith("personal-data-acme-")
    data = file_services.file_bytes(stored)
    if stored.name.endswith(".zip"):
        data = zipfile.ZipFile(io.BytesIO(data)).read("personal-data.json")
    document = json.loads(data)
    assert document["person"]["email"] == subject.email
    assert len(document["records"]["contacts.contact"]) == 1
    assert {kind: len(rows) for kind, rows in document["records"].items() if rows} == {
        kind["kind"]: kind["count"] for kind in answer["kinds"]
    }
    # The other people cannot see the file.
    assert not File.objects.restrict(people["member"]).filter(pk=stored.pk).exists()
    [operation] = PersonalDataOperation.objects.filter(schema_name="acme")
    assert operation.kind == "export" and operation.counts["contacts.contact"] == 1


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({}, "Name the person"),
        ({"email": "sam@acme.example", "userId": 1}, "Name the person"),
        ({"email": "not-an-address"}, "email"),
        ({"userId": 2**31 - 1}, "not found"),
    ],
)
def test_examine_refuses_bad_input(people, arguments, problem):
    assert problem.lower() in refused(people["admin"], "examinePersonalData", arguments).lower()
    assert not File.objects.filter(owner=people["admin"], source="export").exists()


# --- erase ----------------------------------------------------------------------------------------


def test_erase_removes_the_person_from_every_area_and_from_other_tools_answers(people):
    subject = colleague()
    about = ContactFactory(
        actor=people["owner"], first_name="Zebedee", last_name="Erasable", email=subject.email
    )
    # Another person's import plan quoting the address only as a duplicate of that contact.
    plan = ok(
        people["member"],
        "validateDataImport",
        {
            "entityType": "contact",
            "csvText": f"firstName,email\nZeb,{subject.email}\nKept,kept@import.example\n",
        },
    )
    held_plan = DataImport.objects.get(token=plan["token"])
    assert subject.email not in json.dumps(held_plan.rows) and subject.email in json.dumps(
        held_plan.duplicates
    )
    # The person's own background export, with its file shared with everyone since.
    exported = file_services.file_create(
        actor=subject, name="contacts.csv", content=b"id,email\n1,x@example.com\n", visibility="workspace"
    )
    export = DataExport.objects.create(
        kind="contact", format="csv", created_by=subject, status=DataExport.Status.DONE, file=exported
    )
    assert ok(people["owner"], "searchContacts", {"query": "Zebedee"})["total"] == 1
    asked = Asked()

    answer = ok(
        people["admin"],
        "erasePersonalData",
        {"email": subject.email},
        capabilities={"elicitation": {}},
        elicit=asked,
    )

    assert asked.times == 1
    erased = {kind["kind"]: kind["count"] for kind in answer["erased"]}
    assert erased["contacts.contact"] == 1 and erased["accounts.user"] == 1
    assert erased["platform.dataimport"] == 1 and erased["platform.dataexport"] == 1
    assert answer["email"] == subject.email and answer["total"] == sum(erased.values())
    assert not User.objects.filter(pk=subject.pk).exists()
    assert not Contact.objects.filter(pk=about.pk).exists()
    assert not DataImport.objects.filter(pk=held_plan.pk).exists()
    assert (
        not DataExport.objects.filter(pk=export.pk).exists()
        and not File.objects.filter(pk=exported.pk).exists()
    )
    # Gone from other tools' answers.
    assert ok(people["owner"], "searchContacts", {"query": "Zebedee"})["total"] == 0
    listed = ok(people["owner"], "listWorkspaceUsers", {"includeInactive": True})
    assert subject.email not in json.dumps(listed)
    assert ok(people["admin"], "examinePersonalData", {"email": subject.email})["total"] == 0
    [operation] = PersonalDataOperation.objects.filter(schema_name="acme", kind="erase")
    assert operation.outcome == "done"


def test_erase_refuses_the_caller_the_last_owner_and_nobody_without_asking(people):
    asked = Asked()
    context = {"capabilities": {"elicitation": {}}, "elicit": asked}

    assert "your own" in refused(
        people["admin"], "erasePersonalData", {"email": "admin@acme.example"}, **context
    )
    assert "your own" in refused(
        people["owner"], "erasePersonalData", {"userId": people["owner"].pk}, **context
    )
    assert "last owner" in refused(
        people["admin"], "erasePersonalData", {"email": "owner@acme.example"}, **context
    )
    assert "holds nothing" in refused(
        people["admin"], "erasePersonalData", {"email": "nobody-at-all@nowhere.example"}, **context
    )
    assert "Name the person" in refused(people["admin"], "erasePersonalData", {}, **context)
    assert "email" in refused(people["admin"], "erasePersonalData", {"email": "no address"}, **context)

    assert asked.times == 0
    assert (
        User.objects.filter(email__in=["admin@acme.example", "owner@acme.example"], is_active=True).count()
        == 2
    )
    assert not PersonalDataOperation.objects.filter(schema_name="acme", kind="erase").exists()


def test_erase_declined_erases_nothing(people):
    subject = colleague()
    ContactFactory(actor=people["owner"], first_name="Kept", email=subject.email)

    answer = call(
        people["admin"],
        "erasePersonalData",
        {"email": subject.email},
        capabilities={"elicitation": {}},
        elicit=lambda message, schema: {"action": "decline"},
    )

    assert answer["isError"] is True
    assert User.objects.filter(pk=subject.pk, is_active=True).exists()
    assert Contact.objects.filter(email=subject.email, deleted_at__isnull=True).exists()


# --- old import plans -----------------------------------------------------------------------------


def test_old_committed_and_expired_import_plans_are_purged_nightly(people, settings):
    settings.ATRIUM_PLATFORM_IMPORT_PLAN_DAYS = 3
    assert (
        settings.CELERY_BEAT_SCHEDULE["purge-import-plans"]["task"]
        == "apps.platform.tasks.purge_import_plans"
    )

    def plan(name: str) -> DataImport:
        token = ok(
            people["member"],
            "validateDataImport",
            {"entityType": "contact", "csvText": f"email\n{name}@purge.example\n"},
        )["token"]
        return DataImport.objects.get(token=token)

    long_ago = timezone.now() - timedelta(days=4)
    lately = timezone.now() - timedelta(days=2)
    old_committed, old_expired, recent_committed, recent_expired, open_plan = (
        plan(name) for name in ("a", "b", "c", "d", "e")
    )
    DataImport.objects.filter(pk=old_committed.pk).update(status="committed", committed_at=long_ago)
    DataImport.objects.filter(pk=old_expired.pk).update(expires_at=long_ago)
    DataImport.objects.filter(pk=recent_committed.pk).update(status="committed", committed_at=lately)
    DataImport.objects.filter(pk=recent_expired.pk).update(expires_at=lately)

    assert tasks.purge_import_plans() == 0

    left = set(DataImport.objects.filter(source="inline CSV").values_list("pk", flat=True))
    assert {recent_committed.pk, recent_expired.pk, open_plan.pk} <= left
    assert not {old_committed.pk, old_expired.pk} & left
    assert settings.ATRIUM_PLATFORM_IMPORT_PLAN_DAYS == 3
