"""searchTools and describeTool: finding the long tail without listing it (callTool, which runs
it: test_call_tool.py)."""

from apps.catalogue.testing import call, person_with, structured, text_of


def test_search_finds_tools_by_keyword_best_first(people):
    answer = structured(call(people["member"], "searchTools", {"query": "search contacts"}))

    assert answer["matches"][0]["name"] == "searchContacts"
    assert answer["total"] >= 1
    first = answer["matches"][0]
    assert first["area"] == "contacts" and first["readOnly"] is True
    assert first["summary"].startswith("Find contacts by free text")


def test_search_only_finds_tools_the_person_may_use(people):
    names = [
        match["name"]
        for match in structured(call(people["viewer"], "searchTools", {"query": "create contact"}))["matches"]
    ]

    assert "createContact" not in names


def test_search_counts_the_tools_per_area(people):
    areas = {area["area"]: area for area in structured(call(people["viewer"], "searchTools", {}))["areas"]}

    assert areas["catalogue"]["tools"] == 6
    assert areas["contacts"]["title"] == "Contacts"


def test_search_can_keep_to_some_areas(people):
    answer = structured(
        call(people["owner"], "searchTools", {"query": "", "areas": ["catalogue"], "limit": 6})
    )

    assert [match["name"] for match in answer["matches"]] == [
        "callTool",
        "describeTool",
        "getToolTaskStatus",
        "searchTools",
        "searchWorkspace",
        "startToolTask",
    ]


def test_describe_gives_the_full_definition(people):
    answer = structured(call(people["member"], "describeTool", {"name": "updateContact"}))

    assert answer["inputSchema"]["properties"]["contactId"]["type"] == "integer"
    assert answer["outputSchema"]["type"] == "object"
    assert answer["annotations"] == {"destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
    assert answer["permission"] == "contacts.edit"
    assert answer["requiresConfirmation"] is False
    assert answer["firstCall"] is None


def test_describe_does_not_reveal_a_tool_the_person_may_not_use(acme):
    person = person_with({"catalogue.discover"}, email="finder@acme.example")

    result = call(person, "describeTool", {"name": "getContact"})

    assert result["isError"] is True
    assert "No tool named 'getContact' is available to you" in text_of(result)


def test_describe_answers_from_the_description_kept_for_the_registry_version(people):
    from apps.catalogue import dispatch, registry, tools

    first = call(people["member"], "describeTool", {"name": "updateContact"})
    again = call(people["owner"], "describeTool", {"name": "updateContact"})
    kept = tools.description_of(registry.get("updateContact"))

    # Made once: the same object, and the JSON sent is the one made when it was kept.
    assert tools.description_of(registry.get("updateContact")) is kept
    assert text_of(first) == text_of(again) == dispatch._kept_answers[id(kept)][2]
    # What it sends is what the model says, as an answer made afresh would be.
    fresh = tools.ToolDescriptionOut.model_validate(kept.model_dump())
    assert dispatch.success_result(fresh) == dispatch.success_result(kept)
    assert structured(first) == kept.model_dump(mode="json", by_alias=True)


def test_describe_is_made_again_when_the_registry_changes(people):
    from apps.catalogue import registry, tools
    from apps.catalogue.testing import temporary_tools
    from apps.catalogue.tests.marked_tools import open_desk

    before = tools.description_of(registry.get("updateContact"))
    assert structured(call(people["owner"], "describeTool", {"name": "updateContact"}))["firstCall"] is None

    with temporary_tools(open_desk):
        # The area has a first call now: every contacts tool's description names it.
        answer = structured(call(people["owner"], "describeTool", {"name": "updateContact"}))
        assert tools.description_of(registry.get("updateContact")) is not before

    assert answer["firstCall"] == "openContactsDesk"
    assert structured(call(people["owner"], "describeTool", {"name": "updateContact"}))["firstCall"] is None


def test_a_kept_description_is_still_refused_to_who_may_not_use_the_tool(people, acme):
    assert structured(call(people["owner"], "describeTool", {"name": "getContact"}))["name"] == "getContact"
    person = person_with({"catalogue.discover"}, email="finder2@acme.example")

    result = call(person, "describeTool", {"name": "getContact"})

    assert result["isError"] is True
    assert "No tool named 'getContact' is available to you" in text_of(result)
    assert "inputSchema" not in text_of(result)
