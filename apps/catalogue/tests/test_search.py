"""How searchTools reads a request and ranks tools (apps.catalogue.search)."""

import dataclasses

from apps.catalogue import registry, search
from apps.catalogue.checks import check_search_hints
from apps.core import areas


def names(query: str, count: int = 5) -> list[str]:
    return [spec.name for _score, spec in search.rank(registry.all_tools(), query)[:count]]


def stems_read(query: str) -> set[str]:
    """The stems the search reads a request as, its words' and their alternatives'."""
    return {stem for group in search._groups(query, search._index()) for stem in group.stems}


def weights_read(query: str) -> dict[str, float]:
    """How much each stem the search reads a request as counts among its words."""
    return {stem: group.weight for group in search._groups(query, search._index()) for stem in group.stems}


def test_words_split_names_join_hyphens_and_read_times():
    assert search.words("createCalendarEvent") == ["create", "calendar", "event"]
    assert search.words("add a to-do by 10am or 9:30") == ["add", "a", "todo", "by", "time", "or", "time"]


def test_stems_find_other_forms_of_a_word():
    assert "createCalendarEvent" in names("scheduling appointments")


def test_peoples_words_find_the_catalogues():
    assert names("put a dentist appointment in my diary")[0] == "createCalendarEvent"
    assert "listTasks" in names("show me my to-dos")


def test_a_request_always_gets_candidates():
    # Words that say nothing of a tool: where any request can start, the areas' summaries.
    found = names("please can you do it for me now", count=100)
    assert found and "getCalendarSummary" in found and "getCustomerServiceOverview" in found
    # Words no tool has, nor any near them: the nearest words, however far.
    assert names("cntcts plz")
    index = search._index()
    assert search._stem("contacts") in search._near("cntcts plz", index)[0].stems
    # Only an empty request finds nothing.
    assert names("  ") == []


def test_a_phrasal_verb_is_read_with_its_object_inside():
    said = stems_read("push the 1:1 with Jamal back")
    assert search._stem("postpone") in said and search._stem("push") not in said
    assert "transferContactAccounts" in names("hand every customer he owns over to Aisha")
    assert names("let Petra have a look at the Oakhill deal")[0] == "shareDeal"
    # "let me see" is no sharing.
    said = stems_read("let me see the deal")
    assert search._stem("share") not in said


def test_what_a_request_is_about_counts_less_than_what_it_asks_for():
    weights = weights_read("find tickets from anne about invoices, quickly")
    assert weights[search._stem("ticket")] == 1.0
    assert weights[search._stem("invoice")] == search.TOPIC_WEIGHT
    assert "searchTickets" in names("find tickets from anne about invoices")


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


def test_a_typo_is_read_as_the_word_it_misspells():
    assert "sendInvoice" in names("emial the invocie to the customer")
    assert "createCalendarEvent" in names("add a meeting to my calender")


def test_a_real_word_the_catalogue_does_not_use_is_not_read_as_a_typo():
    index = search._index()
    # "lease" is one letter from "leave", but it is English, and not a rare one.
    assert [group.stems for group in search._groups("lease", index)] == [{search._stem("lease"): 1.0}]
    # A name nobody writes is not read as anything either, when nothing is near it.
    assert [group.stems for group in search._groups("Xqzvbn", index)] == [{"xqzvbn": 1.0}]


def test_british_and_american_spellings_find_each_other():
    assert search.stems("organise the catalogue, cancelled") == search.stems("organize the catalog, canceled")
    british = search.rank(registry.all_tools(), "finalise the invoice")
    american = search.rank(registry.all_tools(), "finalize the invoice")
    assert [spec.name for _score, spec in british] == [spec.name for _score, spec in american]


def test_accents_and_apostrophes_are_read_plainly():
    assert search.words("Add her résumé, it's Zoë's") == ["add", "her", "resume", "its", "zoes"]


def test_peoples_phrases_are_read_as_the_catalogues_words():
    assert names("get rid of the draft quote")[0] == "deleteQuote"
    assert "submitLeaveRequest" in names("I'd like some time off in August")
    assert "getLeaveBalance" in names("how much holiday have I got left")
    assert "createHiringCandidate" in names("add this applicant with her CV")


def test_a_negated_word_is_read_as_its_opposite_where_the_catalogue_has_one():
    said = stems_read("customers who haven't paid")
    assert search._stem("unpaid") in said
    assert "searchInvoices" in names("which customers haven't paid")


def test_the_area_step_says_which_areas_a_request_is_about():
    index = search._index()
    about = search._areas_meant(search._groups("void the invoice", index), index)
    assert max(about, key=about.__getitem__) == "accounting"
    # A request that names no area's things leaves every area as it is.
    assert search._areas_meant(search._groups("undo that", index), index) == {}


def test_arguments_and_their_descriptions_are_indexed():
    spec = registry.get("searchInvoices")
    assert spec is not None
    fields = search._fields(spec)
    assert "overdue" in fields["arguments"].lower()
    properties = spec.definition["inputSchema"]["properties"]
    described = [schema["description"] for schema in properties.values() if "description" in schema]
    assert described and all(text in fields["argument text"] for text in described)


def test_the_vocabulary_is_plain_words_that_lead_to_the_catalogues():
    from apps.catalogue.vocabulary import PHRASES, SYNONYMS

    index = search._index()
    assert all(word.isalpha() and word.islower() for word in SYNONYMS)
    assert all(len(phrase.split()) >= 2 for phrase in PHRASES)
    # Every phrase leads to words the index or the vocabulary knows, and every word of people's to
    # at least one the index has: a mapping to nothing would be dead weight.
    for phrase, meant in PHRASES.items():
        assert all(search._known(word, index) for word in meant.split()), phrase
    for word, alternatives in SYNONYMS.items():
        assert any(search._stem(alternative) in index.postings for alternative in alternatives), word


def test_a_dropped_letter_is_likelier_than_a_wrong_one():
    index = search._index()
    # "respnd" is one edit from respond and from resend; a letter left out is the commoner slip.
    assert search._typo("respnd", index) == "respond"


def test_the_mood_is_that_of_the_last_sentence():
    assert search._asks("which invoices are overdue?")
    assert not search._asks("is the meeting room free at 11? book it for the sales sync")
    assert search._asks("find the Acme invoice. is it paid?")


def test_whats_on_asks_for_the_agenda_only_when_no_record_follows():
    said = stems_read("what's on today")
    assert search._stem("agenda") in said
    said = stems_read("what's on quote 31")
    assert search._stem("agenda") not in said
    assert "getQuote" in names("what's on quote Q-0031")


def test_a_time_inside_a_phrasal_verb_changes_its_meaning():
    said = stems_read("take the 4th to the 8th off")
    assert search._stem("leave") in said and search._stem("remove") not in said
    said = stems_read("take Josh off the invite")
    assert search._stem("remove") in said
    assert "submitLeaveRequest" in names("I want to take 4-8 August off")


def test_a_records_kind_as_the_verb_makes_one():
    # (or records the hours to bill later: createCharge)
    assert "createInvoice" in names("bill Northwind for 10 hours of consulting", count=2)
    assert "createQuote" in names("quote Ridgeway 12 hours of design")
    # Before a number it names a record.
    said = stems_read("invoice 332 is paid")
    assert search._stem("create") not in said


def test_a_records_name_after_called_is_what_it_is_about():
    weights = weights_read("find the file called brand guidelines")
    assert weights[search._stem("brand")] == search.TOPIC_WEIGHT
    assert weights[search._stem("file")] == 1.0
    # "called" after a person keeps its meaning.
    said = stems_read("I called Brenda")
    assert search._stem("call") in said


def test_a_person_added_to_a_record_joins_it():
    said = stems_read("add Marta to the planning meeting")
    assert search._stem("invite") in said and search._stem("create") not in said
    assert "updateCalendarEvent" in names("add Marta to the planning meeting")
    # Adding a thing still makes one.
    assert search._stem("create") in stems_read("add a step to the onboarding task")


def test_a_phrase_is_read_in_either_spelling():
    assert stems_read("the organisation chart") == stems_read("the organization chart")


def test_a_time_of_day_named_as_a_thing_is_the_meeting_at_it():
    assert search._stem("meet") in stems_read("decline the 4pm for me")
    assert search._stem("meet") in stems_read("move my 10:30 with Anya to 11")
    # A time that says when ("book a call at 3pm") or that a noun follows ("my 3pm meeting") is none.
    assert search._stem("meet") not in stems_read("book a call at 3pm")
    assert "updateCalendarEvent" in names("decline the 4pm for me")


def test_a_phrase_ending_in_a_preposition_is_none_before_a_time():
    # "send in" submits, "send in June" sends.
    assert search._stem("submit") in stems_read("send in the confirmation statement")
    assert search._stem("submit") not in stems_read("which quotes did we send in June")
    assert search._stem("agenda") in stems_read("what have I got on next week")


def test_the_verb_of_a_question_about_what_was_done_to_named_records_counts_less():
    weights = weights_read("which quotes did we send")
    assert weights[search._stem("send")] == search.DONE_WEIGHT
    assert weights[search._stem("quote")] == 1.0
    # Nothing named before it: the verb is what is asked for.
    assert weights_read("did we send the invoice to Acme")[search._stem("send")] == 1.0
    assert "searchQuotes" in names("which quotes did we send in June")


def test_a_possessive_inside_a_phrase_is_still_the_phrase():
    assert search._stem("overdue") in stems_read("invoices that are past their due date")


def test_a_common_english_word_is_never_read_as_two():
    assert search._stem("board") not in stems_read("the photo of the whiteboard")
    assert search._stem("copi") not in stems_read("the copywriting card")
    assert search._stem("slip") in stems_read("where is my payslip")
