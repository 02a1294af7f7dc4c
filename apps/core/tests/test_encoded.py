"""JSON made once (apps.core.encoded): what is sent is exactly what encoding the whole message
would give, and a value changed after its JSON was made is encoded afresh."""

import json

import pydantic_core

from apps.core.encoded import Encoded, PartlyEncoded, dumps


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
