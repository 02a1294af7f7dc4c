"""How searchTools reads a request and ranks tools (apps.catalogue.search)."""

import dataclasses

from apps.catalogue import registry, search
from apps.catalogue.checks import check_search_hints
from apps.core import areas


def names(query: str, count: int = 5) -> list[str]:
    return [spec.name for _score, spec in search.rank(registry.all_tools(), query)[:count]]


def test_words_split_names_join_hyphens_and_read_times():
    assert search.words("createCalendarEvent") == ["create", "calendar", "event"]
    assert search.words("add a to-do by 10am or 9:30") == ["add", "a", "todo", "by", "time", "or", "time"]


def test_stems_find_other_forms_of_a_word():
    assert "createCalendarEvent" in names("scheduling appointments")


def test_peoples_words_find_the_catalogues():
    assert names("put a dentist appointment in my diary")[0] == "createCalendarEvent"
    assert "listTasks" in names("show me my to-dos")


def test_words_that_say_nothing_find_nothing():
    assert names("please can you do it for me now") == []


def test_a_word_said_twice_counts_once():
    once = dict((spec.name, score) for score, spec in search.rank(registry.all_tools(), "add a client"))
    twice = dict((spec.name, score) for score, spec in search.rank(registry.all_tools(), "add a new client"))
    assert twice["createContact"] == once["createContact"]


def test_only_the_tools_given_are_ranked():
    contacts = [spec for spec in registry.all_tools() if spec.area == "contacts"]
    ranked = search.rank(contacts, "book a meeting with a client")
    assert ranked and {spec.area for _score, spec in ranked} == {"contacts"}


def test_hints_must_name_tools_of_their_area(monkeypatch):
    assert check_search_hints() == []
    contacts = areas.get("contacts")
    assert contacts is not None
    wrong = {**contacts.hints, "createCalendarEvent": "diary", "noSuchTool": "nothing"}
    monkeypatch.setitem(areas._areas, "contacts", dataclasses.replace(contacts, hints=wrong))
    problems = check_search_hints()
    assert [problem.id for problem in problems] == ["atrium.E105", "atrium.E105"]
    assert "'noSuchTool', which is not one of its tools" in problems[1].msg


def test_every_hit_of_the_search_costs_at_most_60_tokens():
    from apps.catalogue.checks import tokens
    from apps.catalogue.tools import _brief

    for spec in registry.all_tools():
        if not spec.fixture:
            assert tokens(_brief(spec).model_dump(by_alias=True)) <= 60, spec.name
