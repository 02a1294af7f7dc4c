"""JSON read as every door reads it: what is refused, said where, and what is still read as JSON."""

import pytest

from apps.core.json_input import MAX_DEPTH, JsonRefused, check, loads, text_problem


def refusal(data):
    with pytest.raises(JsonRefused) as caught:
        loads(data)
    return caught.value


@pytest.mark.parametrize(
    ("data", "where", "words"),
    [
        (b'{"a": "\\ud800"}', "a", "lone UTF-16 surrogate"),
        (b'{"a": ["x", {"b": "y\\udc00"}]}', "a[1].b", "lone UTF-16 surrogate"),
        (b'{"a": "\\udc00\\ud800"}', "a", "lone UTF-16 surrogate"),
        (b'"\xed\xa0\x80"', "", "lone UTF-16 surrogate"),
        ('{"a": "\ud800"}', "a", "lone UTF-16 surrogate"),
        (b'{"a": "x\\u0000"}', "a", "NUL"),
        (b'{"a": {"b\\u0000": 1}}', "a", "a key contains a NUL"),
        (b'"\\u0000"', "", "NUL"),
        (b'{"a": 1e400}', "a", "too large"),
        (b'{"a": [-1E+400]}', "a[0]", "too large"),
        (b'{"a": 1' + b"0" * 400 + b".5}", "a", "too large"),
        (b'{"a": 9223372036854775808}', "a", "64 bits"),
        (b'{"a": -9223372036854775809}', "a", "64 bits"),
        (b'{"a": ' + b"9" * 5000 + b"}", "a", "64 bits"),
    ],
)
def test_what_no_store_can_keep_is_refused_naming_where(data, where, words):
    refused = refusal(data)

    assert not refused.syntax
    assert refused.where == where
    assert words in refused.problem
    assert str(refused) == (f"{where}: {refused.problem}" if where else refused.problem)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 150, 300, 5000, 200_000])
def test_nesting_past_the_limit_is_refused_at_any_depth(depth):
    for opening, closing in ((b"[", b"]"), (b'{"a":', b"}")):
        refused = refusal(opening * depth + b"1" + closing * depth)

        assert not refused.syntax
        assert f"nested deeper than {MAX_DEPTH} levels" in refused.problem


def test_nesting_up_to_the_limit_is_read():
    assert loads(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None


@pytest.mark.parametrize(
    "data", [b"{nope", b"", b"[1,]", b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}', b"\xff\xfe"]
)
def test_text_that_is_not_json_is_a_syntax_refusal(data):
    refused = refusal(data)

    assert refused.syntax
    assert refused.problem.startswith("the body is not valid JSON")


@pytest.mark.parametrize(
    ("data", "value"),
    [
        (b'{"a": "\\\\u0000"}', {"a": "\\u0000"}),  # an escaped backslash, then the text u0000
        (b'{"a": "\\ud83d\\ude00"}', {"a": "\U0001f600"}),
        (b'{"a": 9223372036854775807, "b": -9223372036854775808}', {"a": 2**63 - 1, "b": -(2**63)}),
        (b'{"a": 1.7976931348623157e308, "b": 1e-400}', {"a": 1.7976931348623157e308, "b": 0.0}),
        (b'{"phone": "12345678901234567890", "n": 1e100}', {"phone": "12345678901234567890", "n": 1e100}),
        ('{"name": "Zoë"}', {"name": "Zoë"}),
    ],
)
def test_json_that_is_fine_is_read_as_it_is(data, value):
    assert loads(data) == value


def test_a_refusal_keeps_what_was_read_so_a_door_can_answer_its_id():
    refused = refusal(b'{"jsonrpc": "2.0", "id": 4, "params": {"x": "\\u0000"}}')

    assert refused.where == "params.x"
    assert refused.document["id"] == 4


def test_checking_a_value_made_in_python_never_recurses():
    value: list = []
    for _ in range(100_000):
        value = [value]

    with pytest.raises(JsonRefused):
        check(value)
    check(value, max_depth=100_001)


@pytest.mark.parametrize(
    ("text", "words"),
    [("a\x00b", "NUL"), ("a\ud800", "surrogate"), ("\udfff", "surrogate"), ("ok", None), ("Zoë 😀", None)],
)
def test_text_problem_names_nul_and_lone_surrogates(text, words):
    problem = text_problem(text)

    assert (problem is None) if words is None else (words in problem)
