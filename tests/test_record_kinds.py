"""The record kinds of every area (apps.core.kinds) and the workspace-wide search that reads them
(apps.core.kinds.finding).

- Every model that declares its access is a kind of its area or declared as not one, with why:
  a new area's model joins by its declaration.
- Every kind, over the rows each area's tests/factories.py makes for the access test, is
  resolved, named and opened only for those its access declaration lets see the record.
- The search finds, names and counts, person by person, exactly the rows they may see that hold
  the words (the areas' own search rule), best first; and it stays fast on the demo data.
"""

import time
from dataclasses import replace
from typing import Any

import pytest
from django.apps import apps
from django.urls import reverse

from apps.core import areas, kinds
from apps.core import search as text_search
from apps.core.errors import NotSearched, UnknownEntityType
from apps.core.factories import access_builders
from apps.core.kinds import finding
from apps.core.records import Visibility
from apps.deals.tests.factories import DealFactory
from apps.documents.tests.factories import DocumentFactory

# Records a person links, watches or finds, area by area: each of these is a kind.
EXPECTED = {
    "accounting": {"sales_document", "purchase_bill", "registered_company"},
    "calendars": {"calendar", "calendar_event"},
    "contacts": {"contact"},
    "deals": {"deal", "deal_pipeline", "reachout_campaign", "deal_finder"},
    "departments": {"department"},
    "documents": {"document"},
    "events": {"event", "event_pipeline"},
    "files": {"file"},
    "groupaccounts": {"group_account"},
    "hr": {"employee", "candidate", "hiring_pipeline", "hr_policy"},
    "emailinbox": {"email", "email_thread"},
    "customerservice": {"ticket"},
    "tasks": {"task"},
}
KINDS = kinds.all_kinds()
SEARCHED = [kind for kind in KINDS if kind.search]


def test_every_record_with_an_access_is_a_kind_or_said_not_to_be_one():
    assert areas.kind_problems() == []
    declared = {area.key: {kind.key for kind in area.kinds} for area in areas.all_areas()}
    for area, keys in EXPECTED.items():
        assert keys <= declared[area], area
    # A new model with an access declaration and neither: named, with where to declare it.
    hr = areas.get("hr")
    assert hr is not None
    without = replace(hr, not_kinds={k: v for k, v in hr.not_kinds.items() if k != "hr.TimeEntry"})
    areas._areas["hr"] = without
    try:
        problems = areas.kind_problems()
    finally:
        areas._areas["hr"] = hr
    assert len(problems) == 1 and problems[0].startswith("hr.TimeEntry declares its access")
    assert "apps/hr/area.py" in problems[0]


def test_a_not_kind_must_be_a_record_of_its_area_that_is_no_kind_and_say_why():
    hr = areas.get("hr")
    assert hr is not None
    wrong = replace(
        hr,
        not_kinds={**hr.not_kinds, "hr.Employee": "a kind", "contacts.Contact": "not ours", "hr.Nope": "x"},
    )
    areas._areas["hr"] = replace(wrong, not_kinds={**wrong.not_kinds, "hr.TimeEntry": " "})
    try:
        problems = areas.kind_problems()
    finally:
        areas._areas["hr"] = hr
    assert sorted(problems) == [
        "area 'hr' declares 'contacts.Contact' not a kind, but it is no record of its app",
        "area 'hr' declares 'hr.Employee' not a kind, but it is one",
        "area 'hr' declares 'hr.Nope' not a kind, but it is no record of its app",
        "area 'hr' declares 'hr.TimeEntry' not a kind without saying why",
    ]


def test_the_search_reads_only_a_records_own_text_fields_that_every_reader_may_read(monkeypatch):
    from apps.core import checks
    from apps.hr.models import Employee

    assert [problem for problem in checks.check_record_kinds() if problem.id == "atrium.E007"] == []
    employee = kinds.registered("employee")
    stray = replace(employee, search=("full_name", "department__name", "start_date", "restricted", "nope"))
    assert finding.search_problems(stray) == [
        "record kind 'employee' searches 'department__name': hr.Employee has no field 'department__name' "
        "of its own",
        "record kind 'employee' searches 'start_date': hr.Employee.start_date is not a text field",
        "record kind 'employee' searches 'restricted': hr.Employee.restricted is not a text field",
        "record kind 'employee' searches 'nope': hr.Employee has no field 'nope' of its own",
    ]
    # A text field the access keeps to a permission is read by the search for nobody.
    monkeypatch.setattr(
        Employee,
        "access",
        replace(Employee.access, fields={**Employee.access.fields, "job_title": "hr.restricted"}),
    )
    assert finding.search_problems(employee) == [
        "record kind 'employee' searches 'job_title', which its access restricts"
    ]


def _rows(kind: kinds.Kind, people: dict[str, Any]) -> tuple[Any, list[Any]]:
    builder = access_builders().get(kind.model_class._meta.label)
    assert builder is not None, f"{kind.model}: no rows for the access test (tests/factories.py)"
    rows = builder(people).made
    assert rows, kind.model
    return kind.model_class, rows


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.key)
def test_a_kind_resolves_names_and_opens_a_record_only_for_who_may_see_it(kind, people):
    model, made = _rows(kind, people)
    content_type = kind.content_type().pk
    for role, person in people.items():
        seen = set(
            model.objects.restrict(person)
            .filter(pk__in=[row.pk for row in made])
            .values_list("pk", flat=True)
        )
        for row in made:
            found = kinds.visible(actor=person, content_type_id=content_type, object_id=row.pk)
            assert (found is not None) == (row.pk in seen), f"{kind.key} {row.pk} as the {role}"
            if found is not None:
                assert found.type == kind.key and found.title == kind.title_of(
                    model._base_manager.get(pk=row.pk)
                )
                if kind.url is not None:
                    assert kind.url(found.instance).startswith("/settings/")


def _words_of(kind: kinds.Kind, row: Any) -> str:
    """Words of the row that the search reads: the first of its search fields that holds some."""
    for name in kind.search:
        value = getattr(row, name) or ""
        if value.split():
            return " ".join(value.split()[:3])
    return ""


@pytest.mark.parametrize("kind", SEARCHED, ids=lambda kind: kind.key)
def test_the_search_finds_names_and_counts_only_what_each_person_may_see(kind, people):
    model, made = _rows(kind, people)
    fresh = model._base_manager.in_bulk([row.pk for row in made])
    asked = 0
    for row in fresh.values():
        query = _words_of(kind, row)
        if not query:
            continue
        asked += 1
        for role, person in people.items():
            visible = text_search.matching(model.objects.restrict(person), query, kind.search)
            groups = finding.search(person, query, kinds=[kind.key], limit=finding.MAX_LIMIT)
            found = {hit.id for group in groups for hit in group.hits}
            assert found & set(fresh) == set(visible.filter(pk__in=fresh).values_list("pk", flat=True)), (
                f"{kind.key}: {query!r} as the {role}"
            )
            assert found <= set(visible.values_list("pk", flat=True)), f"{kind.key} as the {role}"
            total = groups[0].total if groups else 0
            assert total == visible.count(), f"{kind.key}: counted as the {role}"
    assert asked, f"{kind.key}: none of the rows made holds words in its search fields"


@pytest.fixture
def plans(people):
    """The member's private plan, and a summary everyone may see (Documents' own factory)."""
    private = DocumentFactory(actor=people["member"], title="Quokka plan", visibility=Visibility.PRIVATE)
    return private, DocumentFactory(actor=people["member"], title="Quokka summary")


def test_another_persons_private_record_is_never_found_named_or_counted(people, plans):
    private, shared = plans
    mine = finding.search(people["member"], "quokka")
    [documents_found] = [group for group in mine if group.kind.key == "document"]
    assert {hit.id for hit in documents_found.hits} == {private.pk, shared.pk}
    assert documents_found.total == 2

    theirs = finding.search(people["viewer"], "quokka")
    [documents_seen] = [group for group in theirs if group.kind.key == "document"]
    assert [(hit.id, hit.title) for hit in documents_seen.hits] == [(shared.pk, "Quokka summary")]
    assert documents_seen.total == 1
    assert all(hit.title != "Quokka plan" for group in theirs for hit in group.hits)
    # Words found only in the private one find nothing at all.
    assert finding.search(people["viewer"], "quokka plan") == []


def test_a_kind_whose_area_a_person_may_not_see_is_not_searched(people, acme):
    from apps.catalogue.testing import person_with

    DealFactory(actor=people["member"], title="Wombat renewal")
    no_deals = person_with({"documents.view"}, email="no-deals@acme.example")
    assert finding.search(no_deals, "wombat") == []
    assert [group.kind.key for group in finding.search(people["viewer"], "wombat")] == ["deal"]


def test_a_word_that_starts_a_name_ranks_first(people):
    member = people["member"]
    in_notes = DealFactory(actor=member, title="Renewal", notes="Ask the numbat team about it")
    in_word = DealFactory(actor=member, title="Panumbatic")
    in_title = DealFactory(actor=member, title="Numbat expansion")
    [group] = finding.search(member, "numbat", kinds=["deal"])
    assert [hit.id for hit in group.hits] == [in_title.pk, in_notes.pk, in_word.pk]
    assert group.hits[0].url == reverse("deals:detail", kwargs={"deal_id": in_title.pk})
    # A word of the query's syntax is only a word: it finds what holds it, and breaks nothing.
    assert finding.search(member, "numbat:* & !'") == []
    assert finding.search(member, "   ") == []


def test_only_kinds_the_search_reads_can_be_asked_for(people):
    with pytest.raises(UnknownEntityType):
        finding.search(people["member"], "x", kinds=["spaceship"])
    with pytest.raises(NotSearched) as refused:
        finding.search(people["member"], "x", kinds=["email_thread"])
    assert refused.value.details == {"kinds": ["not searched"]}


def test_the_search_is_quick_on_the_demo_data(people, django_assert_max_num_queries):
    owner = people["owner"]
    searched = finding.searched()
    assert len(searched) >= 20
    for query in ("a", "acme", "plan review", "example.com"):
        started = time.perf_counter()
        # One query per kind the person may see, and no more.
        with django_assert_max_num_queries(len(searched) + 2):
            finding.search(owner, query)
        assert time.perf_counter() - started < 2.0, query


def test_each_searched_model_is_a_model():
    assert all(apps.get_model(kind.model) for kind in SEARCHED)


def test_the_page_lists_by_kind_with_links_what_the_reader_may_see(people, plans, acme_client):
    private, shared = plans
    deal = DealFactory(actor=people["member"], title="Quokka renewal")
    acme_client.force_login(people["viewer"])

    page = acme_client.get(reverse("search:workspace"), {"q": "quokka"})
    assert page.status_code == 200
    text = page.content.decode()
    assert f'href="{reverse("documents:detail", kwargs={"document_id": shared.pk})}"' in text
    assert f'href="{reverse("deals:detail", kwargs={"deal_id": deal.pk})}"' in text
    assert (
        "Quokka plan" not in text
        and str(reverse("documents:detail", kwargs={"document_id": private.pk})) not in text
    )
    assert 'id="found-document"' in text and 'id="found-deal"' in text
    # The menu's box keeps the words asked.
    assert 'name="q" value="quokka"' in text

    acme_client.force_login(people["member"])
    only_documents = acme_client.get(reverse("search:workspace"), {"q": "quokka", "kind": "document"})
    text = only_documents.content.decode()
    assert "Quokka plan" in text and 'id="found-deal"' not in text


def test_the_page_asks_for_a_sign_in_and_finds_nothing_without_words(people, acme_client):
    assert acme_client.get(reverse("search:workspace"), {"q": "quokka"}).status_code == 302
    acme_client.force_login(people["viewer"])
    empty = acme_client.get(reverse("search:workspace"))
    assert empty.status_code == 200 and 'class="found-kind"' not in empty.content.decode()


def test_the_tool_answers_what_the_page_shows_for_each_person(people, plans):
    from apps.catalogue.testing import ok, refused
    from apps.tenancy import links

    private, shared = plans
    mine = ok(people["member"], "searchWorkspace", {"query": "quokka", "kinds": ["document"]})
    assert mine["total"] == 2 and [group["kind"] for group in mine["kinds"]] == ["document"]
    assert {record["id"] for record in mine["kinds"][0]["records"]} == {private.pk, shared.pk}

    theirs = ok(people["viewer"], "searchWorkspace", {"query": "quokka"})
    [documents_seen] = [group for group in theirs["kinds"] if group["kind"] == "document"]
    assert documents_seen == {
        "kind": "document",
        "label": "Document",
        "total": 1,
        "records": [
            {
                "id": shared.pk,
                "title": "Quokka summary",
                "url": links.page("documents:detail", document_id=shared.pk),
            }
        ],
    }
    assert "Quokka plan" not in str(theirs)
    assert "spaceship" in refused(
        people["viewer"], "searchWorkspace", {"query": "quokka", "kinds": ["spaceship"]}
    )
