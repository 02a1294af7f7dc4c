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
