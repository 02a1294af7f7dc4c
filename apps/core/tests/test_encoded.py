"""JSON made once (apps.core.encoded): what is sent is exactly what encoding the whole message
would give, and a value changed after its JSON was made is encoded afresh."""

import json

import pydantic_core

from apps.core.encoded import Encoded, Json, PartlyEncoded, dumps


def tool_result(structured: dict) -> PartlyEncoded:
    made = pydantic_core.to_json(structured)
    result = PartlyEncoded({"content": [{"type": "text", "text": made.decode()}]})
    result.with_json("structuredContent", structured, made)
    result["isError"] = False
    return result


def test_a_message_with_a_partly_encoded_result_is_the_json_of_the_whole():
    structured = {"name": 'Zoë "Z" <z@example.com>', "tags": ["a\nb", "\u2028"], "n": 1.5, "none": None}
    message = {"jsonrpc": "2.0", "id": "req-1", "result": tool_result(structured)}

    sent = dumps(message)

    assert sent == pydantic_core.to_json(dict(message) | {"result": dict(message["result"])})
    assert json.loads(sent)["result"]["structuredContent"] == structured


def test_a_value_replaced_after_its_json_was_made_is_encoded_afresh():
    result = tool_result({"old": True})
    result["structuredContent"] = {"new": True}

    assert json.loads(dumps({"jsonrpc": "2.0", "id": 1, "result": result}))["result"][
        "structuredContent"
    ] == {"new": True}


def test_an_encoded_page_is_sent_as_made_and_plain_messages_as_usual():
    page = Encoded({"tools": [{"name": "getContact"}], "nextCursor": "abc"})

    assert dumps({"jsonrpc": "2.0", "id": 3, "result": page}) == (
        b'{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"getContact"}],"nextCursor":"abc"}}'
    )
    assert dumps({"jsonrpc": "2.0", "method": "ping"}) == b'{"jsonrpc":"2.0","method":"ping"}'


def test_a_value_kept_as_its_json_is_sent_as_it_is_and_made_into_objects_only_when_asked():
    structured = {"name": 'Zoë "Z"', "tags": ["\u2028"], "n": 1.5}
    made = pydantic_core.to_json(structured)
    result = PartlyEncoded({"content": [{"type": "text", "text": made.decode()}]})
    result["structuredContent"] = Json(made)
    result["isError"] = False

    sent = dumps({"jsonrpc": "2.0", "id": 7, "result": result})

    assert sent == pydantic_core.to_json(
        {"jsonrpc": "2.0", "id": 7, "result": dict(result) | {"structuredContent": structured}}
    )
    assert result["structuredContent"].value() == structured
    assert result["structuredContent"].value() is result["structuredContent"].value()


def test_a_value_kept_as_its_json_deeper_in_a_message_is_encoded_as_its_objects():
    # callTool answers the result of the tool it ran, inside a result of its own.
    inner = Json(b'{"id":1,"name":"Ada"}')
    message = {"jsonrpc": "2.0", "id": 1, "result": {"outer": {"structuredContent": inner}}}

    assert json.loads(dumps(message))["result"]["outer"]["structuredContent"] == {"id": 1, "name": "Ada"}
