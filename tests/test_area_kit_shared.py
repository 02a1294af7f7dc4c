"""What the area kit writes once for every area: the checks of values people and agents give
(apps.core.clean), a record's history with the door a change came through (apps.core.history),
pipelines of ordered stages (apps.core.pipelines), and the catalogue kit's links (open_tool) and
answers read from related rows. Exercised on the areas that use them."""

from datetime import date
from decimal import Decimal

import pytest

from apps.accounting.lib.money import currency_code
from apps.catalogue.testing import ok
from apps.contacts.models import ContactEvent
from apps.contacts.tests.factories import ContactFactory
from apps.core import clean, history, pipelines
from apps.core.errors import FieldRequired, NotFound, ValidationFailed
from apps.core.origin import Origin, through
from apps.deals import services as deals
from apps.deals.models import Pipeline
from apps.deals.models import Stage as DealStage
from apps.deals.shapes import PipelineOut
from apps.deals.tests.factories import DealFactory, PipelineFactory
from apps.events import services as events
from apps.events.models import EventPipeline
from apps.events.models import Stage as EventStage
from apps.hr.models import HiringStage

# --- values -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "kept"), [("eur", "EUR"), (" gbp ", "GBP"), ("jpy", "JPY")])
def test_a_currency_is_an_iso_4217_code_in_capitals(given, kept):
    assert clean.currency(given) == kept


@pytest.mark.parametrize("given", ["ZZZ", "EURO", "e1r", ""])
def test_a_code_the_standard_does_not_list_is_refused_naming_the_field(given):
    with pytest.raises(ValidationFailed) as refused:
        clean.currency(given, field="payCurrency")

    assert list(refused.value.details) == ["payCurrency"]
    assert "ISO 4217" in str(refused.value.message)


@pytest.mark.parametrize("given", ["XAU", "XXX", "XTS"])
def test_a_currency_is_one_of_money_wherever_it_is_given(given):
    """Gold, "no currency" and the testing code hold no amounts: refused in every area, as where
    amounts are posted."""
    with pytest.raises(ValidationFailed, match="not an ISO 4217 currency of money") as refused:
        clean.currency(given, field="payCurrency")
    assert list(refused.value.details) == ["payCurrency"]
    assert currency_code("jpy") == "JPY"
    with pytest.raises(ValidationFailed, match="not an ISO 4217 currency of money"):
        currency_code(given)


def test_a_time_zone_is_an_iana_name():
    assert clean.zone(" Europe/Berlin ") == "Europe/Berlin"
    with pytest.raises(ValidationFailed, match="'Mars/Base' is not a time zone") as refused:
        clean.zone("Mars/Base", field="schedule.timeZone")
    assert list(refused.value.details) == ["schedule.timeZone"]


@pytest.mark.parametrize(
    ("kept", "said"),
    [
        ("10.00", "10"),
        ("20", "20"),
        ("0.50", "0.5"),
        ("1250.000", "1250"),
        ("0", "0"),
        ("1E+30", "1" + "0" * 30),
    ],
)
def test_a_number_is_said_as_people_write_it(kept, said):
    assert str(clean.plain(Decimal(kept))) == said


def test_text_is_one_tidied_line_and_long_text_keeps_its_lines():
    assert clean.text("  Quarterly \n  review ", field="title", limit=20) == "Quarterly review"
    assert clean.long_text("  First line\n\nSecond\x00 ", field="notes", limit=50) == "First line\n\nSecond"
    assert clean.text(None, field="title", limit=20) == ""
    with pytest.raises(FieldRequired, match="title: is required and cannot be empty") as empty:
        clean.text("   ", field="title", limit=20, required=True)
    assert empty.value.details == {"title": ["is required and cannot be empty"]}
    # Only characters that show nothing (zero-width spaces, a word joiner, a byte-order mark).
    for invisible in ("\u200b\u200b", "\u2060", "\ufeff \u200d", "\u00a0"):
        with pytest.raises(FieldRequired):
            clean.text(invisible, field="title", limit=20, required=True)
        with pytest.raises(FieldRequired):
            clean.long_text(invisible, field="notes", limit=20, required=True)
    assert clean.text("a\u200bb", field="title", limit=20, required=True) == "a\u200bb"
    with pytest.raises(ValidationFailed, match="notes: at most 5 characters"):
        clean.long_text("abcdef", field="notes", limit=5)


def test_an_email_address_is_kept_in_lower_case_and_an_empty_one_only_where_it_may_be():
    assert clean.email(" Ada@Example.ORG ") == "ada@example.org"
    assert clean.email("") == ""
    with pytest.raises(ValidationFailed, match="is not a valid e-mail address"):
        clean.email("", field="speakers", required=True)
    with pytest.raises(ValidationFailed, match="'not-mail' is not a valid e-mail address"):
        clean.email("not-mail")


def test_a_person_named_by_email_is_not_found_or_the_field_that_names_them_is_refused(people):
    assert clean.person_by_email(" MEMBER@acme.example ") == people["member"]
    with pytest.raises(NotFound):
        clean.person_by_email("nobody@acme.example")
    with pytest.raises(ValidationFailed) as refused:
        clean.person_by_email("nobody@acme.example", field="managerEmail")
    assert list(refused.value.details) == ["managerEmail"]


# --- histories ----------------------------------------------------------------------------------


def test_a_history_keeps_the_tool_call_a_change_was_made_in(people):
    contact = ContactFactory(actor=people["member"])
    with through(Origin(door="gateway", tool="updateContact", client="k" * 300)):
        entry = history.record(
            ContactEvent,
            actor=people["member"],
            contact=contact,
            kind=ContactEvent.Kind.UPDATED,
            summary="s" * 400,
            changes={"birthday": (None, date(1990, 5, 1)), "owner": [people["member"], Decimal("1.50")]},
        )
    by_the_service = history.record(ContactEvent, actor=None, contact=contact, kind="health_updated")

    entry.refresh_from_db()
    assert (entry.door, entry.tool, entry.client) == ("gateway", "updateContact", "k" * 200)
    assert entry.summary == "s" * 300
    assert entry.changes == {"birthday": [None, "1990-05-01"], "owner": [people["member"].pk, "1.50"]}
    assert (by_the_service.actor, by_the_service.door, by_the_service.changes) == (None, "", {})


# --- pipelines ----------------------------------------------------------------------------------


def test_every_area_keeps_its_stage_constraints_under_the_one_base():
    names = {
        model: {constraint.name for constraint in model._meta.constraints}
        for model in (EventStage, HiringStage, DealStage)
    }

    assert names[EventStage] == {"events_stage_position_once", "events_stage_name_once"}
    assert names[HiringStage] == {"hr_hiring_stage_position_once", "hr_hiring_stage_name_once"}
    assert "deals_stage_probability_percent" in names[DealStage]
    assert DealStage._meta.get_field("name").max_length == HiringStage._meta.get_field("name").max_length


def test_stages_are_given_in_order_each_name_once_and_not_too_many():
    with pytest.raises(ValidationFailed, match="each stage once"):
        pipelines.stage_list([{"name": "Idea"}, {"name": " idea "}])
    with pytest.raises(ValidationFailed, match="give 2 to 20 stages"):
        pipelines.stage_list([{"name": "Only"}], least=2)
    with pytest.raises(ValidationFailed, match="give 1 to 20 stages"):
        pipelines.stage_list([{"name": f"S{n}"} for n in range(21)])

    assert [stage["name"] for stage in pipelines.stage_list([{"name": "  Booked   in "}])] == ["Booked in"]


def test_a_removed_stage_closes_the_gap_and_a_pipeline_keeps_one(people):
    pipeline = events.pipeline_create(actor=people["member"], name="Kit stages", stages=["A", "B", "C"])
    first, middle, last = pipelines.ordered(pipeline)

    pipelines.remove_stage(middle)
    pipelines.remove_stage(first)

    assert [(stage.name, stage.position) for stage in pipelines.ordered(pipeline)] == [("C", 1)]
    with pytest.raises(ValidationFailed, match="keeps at least one stage"):
        pipelines.remove_stage(last)


def test_a_stage_of_another_pipeline_is_refused_naming_the_tool_that_lists_them(people):
    mine = events.pipeline_create(actor=people["member"], name="Kit mine", stages=["Idea"])
    other = events.pipeline_create(actor=people["member"], name="Kit other", stages=["Idea"])
    theirs = pipelines.first_stage(other)

    with pytest.raises(ValidationFailed) as refused:
        pipelines.on_pipeline(theirs, mine, what="the event")
    with pytest.raises(ValidationFailed, match="no stage 987654; getEventPlanningOverview lists the stages"):
        pipelines.stage_of(EventPipeline, actor=people["member"], stage_id=987654)
    with pytest.raises(
        ValidationFailed, match=f"no stage {theirs.pk} of pipeline {mine.pk}; getEventPlanning"
    ):
        pipelines.stage_of(EventPipeline, actor=people["member"], stage_id=theirs.pk, pipeline=mine)

    assert "is in pipeline 'Kit other', but the event is on pipeline 'Kit mine'" in str(refused.value.message)


def test_stages_reordered_in_place_and_read_back_in_their_order(people):
    pipeline = PipelineFactory(actor=people["admin"])
    first, second, third = pipelines.ordered(pipeline)

    deals.pipeline_manage(
        actor=people["admin"],
        pipeline_id=pipeline.pk,
        action="reorder",
        stage_ids=[third.pk, first.pk, second.pk],
    )
    answer = PipelineOut.of_record(Pipeline.objects.get(pk=pipeline.pk))

    assert [stage.name for stage in answer.stages] == [third.name, first.name, second.name]
    assert [stage.position for stage in answer.stages] == [1, 2, 3]


def test_the_deals_on_a_removed_stage_move_first(people):
    pipeline = PipelineFactory(actor=people["admin"])
    first, second, _third = pipelines.ordered(pipeline)
    deal = DealFactory(actor=people["admin"], pipeline=pipeline)

    deals.pipeline_manage(
        actor=people["admin"],
        pipeline_id=pipeline.pk,
        action="remove_stage",
        stage_id=first.pk,
        move_to_stage_id=second.pk,
    )

    deal.refresh_from_db()
    assert deal.stage_id == second.pk
    assert deal.events.filter(kind="moved").exists()


# --- links --------------------------------------------------------------------------------------


def test_an_open_tool_answers_a_link_and_a_title_only_where_it_names_one(people):
    pipeline = PipelineFactory(actor=people["admin"])

    board = ok(people["member"], "openDeals", {"pipelineId": pipeline.pk})
    hr = ok(people["owner"], "openHumanResources")

    assert board["url"].endswith(f"#pipeline-{pipeline.pk}")
    assert board["title"] == "Deals"
    assert set(hr) == {"url"} and hr["url"].startswith("http")


# --- a person given work holds the permission that works it (clean.able) ------------------------


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("createBlogPost", {"post": {"title": "Spring", "ownerEmail": "viewer@acme.example"}}),
        ("createFormTemplate", {"form": {"title": "Survey", "ownerEmail": "viewer@acme.example"}}),
        ("createGroupAccount", {"account": {"name": "Initech group", "ownerEmail": "viewer@acme.example"}}),
    ],
)
def test_an_owner_who_cannot_work_the_record_is_refused(people, tool, arguments):
    from apps.catalogue.testing import refused

    message = refused(people["admin"], tool, arguments)

    assert "viewer@acme.example cannot be given this" in message


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        ("moment", "0001-01-01T00:30"),
        ("moment", "9999-12-31T23:30"),
        ("moment", "0999-12-31"),
        ("day", "0999-12-31"),
        ("day", "3000-01-01"),
    ],
)
def test_an_import_refuses_a_time_out_of_the_years_as_a_tool_does(parse, text):
    from apps.core import transfer

    with pytest.raises(ValidationFailed) as refused:
        getattr(transfer, parse)("dueAt")(text)

    assert "must be in the years 1000 to 2999" in str(refused.value)


def test_a_birthday_out_of_the_years_is_refused_by_the_tool_and_the_import(people):
    from apps.catalogue.testing import refused
    from apps.contacts.transfer import COLUMNS

    message = refused(
        people["admin"], "createContact", {"contact": {"firstName": "Old", "birthday": "0001-01-01"}}
    )
    assert "must be in the years 1000 to 2999" in message
    birthday = next(column for column in COLUMNS if column.name == "birthday")
    with pytest.raises(ValidationFailed):
        birthday.parse("0001-01-01")  # type: ignore[misc]
