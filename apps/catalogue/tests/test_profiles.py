"""Tool profiles (apps.catalogue.profiles): short lists for the jobs people do, that narrow what
is listed and never what the person may do."""

import dataclasses

import pytest

from apps.catalogue import profiles
from apps.catalogue.checks import check_profiles, model_tokens
from apps.catalogue.dispatch import list_tools
from apps.catalogue.testing import call, principal_for, structured
from apps.core import areas

OWN = {"searchTools", "describeTool", "callTool"}


def names(principal, **narrowing):
    return {entry["name"] for entry in list_tools(principal=principal, **narrowing)}


def test_there_are_profiles_for_several_jobs_each_within_its_limits():
    assert len(profiles.PROFILES) >= 3
    assert check_profiles() == []
    for profile in profiles.PROFILES:
        listed = profiles.tools(profile.key)
        assert {spec.name for spec in listed} >= OWN
        assert len(listed) <= profiles.MAX_TOOLS
        assert sum(model_tokens(spec) for spec in listed) <= profiles.MAX_TOKENS


@pytest.mark.parametrize("key", [profile.key for profile in profiles.PROFILES])
def test_a_profile_lists_its_tools_that_the_role_allows(people, key):
    owner, viewer = principal_for(people["owner"]), principal_for(people["viewer"])

    assert names(owner, profile=key) == set(profiles.tool_names(key))
    assert names(viewer, profile=key) == profiles.tool_names(key) & names(viewer)


def test_toolsets_and_read_only_narrow_a_profile_further(people):
    owner = principal_for(people["owner"])

    listed = names(owner, profile="sales", toolsets={"contacts"}, read_only=True)

    assert "getContact" in listed and "searchContacts" in listed
    assert "createContact" not in listed and "searchCalendarEvents" not in listed
    assert listed >= OWN


def test_a_tool_outside_the_profile_is_still_run_by_calltool(people, acme):
    assert "listFileTrash" not in profiles.tool_names("sales")

    answer = call(people["member"], "callTool", {"name": "listFileTrash", "arguments": {}})

    assert structured(answer) == structured(call(people["member"], "listFileTrash", {}))


def test_the_check_names_an_unknown_profile_a_foreign_tool_and_a_profile_too_long(monkeypatch):
    contacts = areas.get("contacts")
    assert contacts is not None
    wrong = {**contacts.profiles, "gardening": ("getContact",), "sales": ("createCalendarEvent",)}
    monkeypatch.setitem(areas._areas, "contacts", dataclasses.replace(contacts, profiles=wrong))
    problems = [message.msg for message in check_profiles()]

    assert any("'gardening', which is not a profile" in problem for problem in problems)
    assert any(
        "'createCalendarEvent' in 'sales', but it is not one of its tools" in problem for problem in problems
    )

    monkeypatch.setattr(profiles, "MAX_TOOLS", 3)
    monkeypatch.setattr(profiles, "MAX_TOKENS", 100)
    problems = [message.msg for message in check_profiles()]

    assert any("profile 'essentials' lists" in problem and "more than 3" in problem for problem in problems)
    assert any("profile 'essentials' costs a model" in problem for problem in problems)


def test_there_is_a_profile_for_every_job_and_every_tool_is_in_one():
    keys = {profile.key for profile in profiles.PROFILES}
    jobs = {"essentials", "sales", "operations", "people", "finance", "support", "hr", "events"}
    assert keys >= jobs | {"marketing", "automation", "admin"}
    assert profiles.unlisted() == []
    # The background tools of the MCP door are the automation profile's.
    assert {"startToolTask", "getToolTaskStatus"} <= profiles.tool_names("automation")


def test_the_check_names_a_tool_that_no_profile_lists(monkeypatch):
    contacts = areas.get("contacts")
    assert contacts is not None
    fewer = {key: tuple(set(names) - {"lookupCountry"}) for key, names in contacts.profiles.items()}
    monkeypatch.setitem(areas._areas, "contacts", dataclasses.replace(contacts, profiles=fewer))
    # The lists are cached per registry version, which a changed declaration does not change.
    profiles._names.cache_clear()
    try:
        problems = [message.msg for message in check_profiles()]
        unlisted = [spec.name for spec in profiles.unlisted()]
    finally:
        profiles._names.cache_clear()

    assert unlisted == ["lookupCountry"]
    assert problems == ["lookupCountry (contacts) is in no profile: its area names it in one (`profiles=`)"]


def test_people_choose_a_profile_by_what_they_do():
    from apps.apikeys.forms import profile_field
    from apps.oauth.views import ConsentForm

    finance = profiles.get("finance")
    assert finance is not None and str(finance.job) == "I do the books"
    assert str(profiles.get("support").job) == "I answer customers"
    consent = dict(ConsentForm().fields["profile"].choices)
    assert str(consent["finance"]).startswith("I do the books (Finance: ")
    assert str(dict(profile_field().choices)["support"]).startswith("I answer customers (Support: ")
