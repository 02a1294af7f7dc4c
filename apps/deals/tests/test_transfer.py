"""Deals through the Platform's import and export tools (apps/deals/transfer.py), called through
the catalogue's dispatcher: an export by two roles (another person's private deal absent, a
contact named only to whom may see it), an import validated (problems by row and column, nothing
made) then committed twice with one effect, a duplicate of an open deal found, and a role that may
not make deals refused."""

import csv
import io
from datetime import date

from apps.catalogue.testing import ok, person_without, refused
from apps.contacts.tests.factories import ContactFactory
from apps.deals import services
from apps.deals.models import Deal, DealEvent, StageVisit
from apps.deals.tests.factories import DealFactory, PipelineFactory
from apps.groupaccounts.tests.factories import GroupAccountFactory
from apps.platform.models import DataImport
from apps.platform.tests.test_transfer_tools import _commit, _validate


def _export(user, query, kind="deal"):
    answer = ok(user, "exportDataCsv", {"entityType": kind, "query": query})
    return list(csv.DictReader(io.StringIO(answer["csvText"])))


def test_an_export_holds_the_deals_each_role_may_read(people):
    pipeline = PipelineFactory(actor=people["admin"], name="Export pipeline")
    hidden = ContactFactory(actor=people["admin"], email="hidden@deals-export.example", visibility="private")
    account = GroupAccountFactory(actor=people["admin"], name="Exportmarker Holdings")
    # The admin's deal, the workspace's, with the admin's private contact.
    DealFactory(
        actor=people["admin"],
        pipeline=pipeline,
        title="Exportmarker seats",
        value=1250,
        contact_id=hidden.pk,
        group_account_id=account.pk,
        expected_close=date(2027, 3, 31),
    )
    DealFactory(actor=people["member"], pipeline=pipeline, title="=Exportmarker formula", value=10)
    DealFactory(actor=people["admin"], pipeline=pipeline, title="Exportmarker secret", visibility="private")

    rows = _export(people["member"], "Exportmarker")

    assert sorted(row["title"] for row in rows) == ["'=Exportmarker formula", "Exportmarker seats"]
    seats = next(row for row in rows if row["title"] == "Exportmarker seats")
    assert list(seats)[:4] == ["id", "title", "value", "currency"]
    assert (seats["value"], seats["pipeline"], seats["stage"], seats["expectedClose"]) == (
        "1250.00",
        "Export pipeline",
        "Qualified",
        "2027-03-31",
    )
    assert (seats["groupAccount"], seats["ownerEmail"], seats["status"]) == (
        "Exportmarker Holdings",
        "admin@acme.example",
        "open",
    )
    # The admin's private contact is not named to the member.
    assert seats["contactEmail"] == ""

    theirs = _export(people["admin"], "Exportmarker")
    assert len(theirs) == 3 and "Exportmarker secret" in {row["title"] for row in theirs}
    assert {row["contactEmail"] for row in theirs if row["title"] == "Exportmarker seats"} == {
        "hidden@deals-export.example"
    }


def test_an_import_is_checked_by_row_and_column_then_made_once(people):
    pipeline = PipelineFactory(actor=people["admin"], name="Import pipeline")
    PipelineFactory(actor=people["admin"], name="Other pipeline")
    ContactFactory(actor=people["member"], email="buyer@deals-import.example")
    GroupAccountFactory(actor=people["member"], name="Importmarker Ltd")
    held = DealFactory(actor=people["member"], pipeline=pipeline, title="Importmarker renewal")
    before = (Deal.objects.count(), DealEvent.objects.count())
    text = (
        "Title,value,currency,pipeline,stage,contact email,group account,expectedClose,ownerEmail\n"
        "Importmarker seats,1200.50,EUR,import pipeline,Proposal,buyer@deals-import.example,"
        "importmarker ltd,2027-01-31,admin@acme.example\n"  # 2: fine
        "Importmarker bad stage,10,EUR,Import pipeline,Nowhere,,,,\n"  # 3: stage
        "Importmarker bad value,lots,EUR,Import pipeline,,,,,\n"  # 4: value
        "Importmarker nobody,1,EUR,Import pipeline,,nobody@deals-import.example,,,\n"  # 5: contact
        "Importmarker no pipeline,1,EUR,,,,,,\n"  # 6: two pipelines, none named
        "Importmarker late,1,EUR,Import pipeline,,,,31/01/2027,\n"  # 7: date
        "importmarker  SEATS,5,EUR,Import pipeline,,,,,\n"  # 8: repeats row 2
        "Importmarker renewal,5,EUR,Import pipeline,,,,,\n"  # 9: an open deal we have
        "Importmarker other,7,EUR,Other pipeline,,,,,\n"  # 10: fine
    )

    plan = _validate(people["member"], text, kind="deal")

    problems = {(p["row"], p["column"]) for p in plan["problems"]}
    assert problems == {
        (3, "stage"),
        (4, "value"),
        (5, "contactEmail"),
        (6, "pipeline"),
        (7, "expectedClose"),
    }
    assert all(p["problem"] for p in plan["problems"])
    assert [(d["row"], d["key"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (8, "title:importmarker seats", 2, None),
        (9, "title:importmarker renewal", None, held.pk),
    ]
    assert (plan["toImport"], plan["invalidRows"]) == (2, 5)
    assert (Deal.objects.count(), DealEvent.objects.count()) == before

    first = _commit(people["member"], plan["token"], skipInvalidRows=True)
    again = _commit(people["member"], plan["token"], skipInvalidRows=True)

    made = list(Deal.objects.filter(pk__in=first["createdIds"]).order_by("id"))
    assert [deal.pk for deal in made] == again["createdIds"] and again["alreadyCommitted"] is True
    seats, other = made
    assert (seats.title, str(seats.value), seats.stage.name, seats.pipeline.name) == (
        "Importmarker seats",
        "1200.50",
        "Proposal",
        "Import pipeline",
    )
    assert (seats.contact.email, seats.group_account.name, seats.owner, seats.created_by) == (
        "buyer@deals-import.example",
        "Importmarker Ltd",
        people["admin"],
        people["member"],
    )
    assert (other.pipeline.name, other.stage.name, other.owner) == (
        "Other pipeline",
        "Qualified",
        people["member"],
    )
    # Made as createDeal makes one: its first stage visit and its history.
    assert StageVisit.objects.filter(deal__in=made, left_at__isnull=True).count() == 2
    assert DealEvent.objects.filter(deal__in=made, kind="created").count() == 2
    assert Deal.objects.filter(title__iexact="importmarker seats").count() == 1


def test_a_private_contact_of_someone_else_is_no_key_to_import_with(people):
    PipelineFactory(actor=people["admin"], name="Private pipeline")
    ContactFactory(actor=people["admin"], email="secret@deals-import.example", visibility="private")
    text = "title,pipeline,contactEmail\nSecretmarker deal,Private pipeline,secret@deals-import.example\n"

    plan = _validate(people["member"], text, kind="deal")

    assert [(p["row"], p["column"]) for p in plan["problems"]] == [(2, "contactEmail")]
    assert "secret@deals-import.example" in plan["problems"][0]["problem"]


def test_a_role_that_may_not_make_deals_may_not_import_them(people):
    PipelineFactory(actor=people["admin"], name="Refusal pipeline")
    person = person_without("deals.manage", email="no-deals-manage@acme.example")
    text = "title,pipeline\nRefusedmarker deal,Refusal pipeline\n"

    assert "permission" in refused(person, "validateDataImport", {"entityType": "deal", "csvText": text})
    assert not Deal.objects.filter(title="Refusedmarker deal").exists()
    assert not DataImport.objects.filter(created_by=person).exists()


def test_a_role_that_may_not_read_deals_may_not_export_them(people):
    person = person_without("deals.view", email="no-deals-view@acme.example")

    assert "permission" in refused(person, "exportDataCsv", {"entityType": "deal"})


def test_the_activities_of_the_deals_one_may_read_are_exported_and_not_imported(people):
    pipeline = PipelineFactory(actor=people["admin"], name="Activity pipeline")
    open_deal = DealFactory(actor=people["member"], pipeline=pipeline, title="Activitymarker open")
    secret = DealFactory(
        actor=people["admin"], pipeline=pipeline, title="Activitymarker secret", visibility="private"
    )
    for deal in (open_deal, secret):
        services.contact_log(
            actor=deal.owner,
            deal_id=deal.pk,
            channel="meeting",
            summary=f"Met about {deal.title}",
            outcome="+1",
        )
    services.follow_up_schedule(
        actor=people["member"], deal_id=open_deal.pk, due=date(2027, 2, 3), summary="Activitymarker call back"
    )

    rows = _export(people["member"], "Activitymarker", kind="deal_activity")

    assert sorted((row["kind"], row["summary"]) for row in rows) == [
        ("contact", "Met about Activitymarker open"),
        ("follow_up", "Activitymarker call back"),
    ]
    logged = next(row for row in rows if row["kind"] == "contact")
    assert (logged["deal"], logged["dealId"], logged["channel"], logged["outcome"]) == (
        "Activitymarker open",
        str(open_deal.pk),
        "meeting",
        "'+1",
    )
    assert len(_export(people["admin"], "Activitymarker", kind="deal_activity")) == 3
    said = refused(
        people["member"], "validateDataImport", {"entityType": "deal_activity", "csvText": "summary\nx\n"}
    )
    assert "'deal_activity' cannot be imported" in said


def test_a_deal_whose_title_has_runs_of_spaces_is_found_as_the_same(people):
    held = DealFactory(actor=people["member"], title="Spacemarker   Big  Renewal")

    plan = _validate(people["member"], "title\nspacemarker big renewal\n", kind="deal")

    assert [(d["key"], d["existingId"]) for d in plan["duplicates"]] == [
        ("title:spacemarker big renewal", held.pk)
    ]
