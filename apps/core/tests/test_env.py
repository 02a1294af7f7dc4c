"""Typed environment reads (apps.core.env): values as the settings had them, and every malformed
value stopped with ImproperlyConfigured naming the variable and what it expects. No database."""

from contextlib import AbstractContextManager

import pytest
from django.core.exceptions import ImproperlyConfigured

from apps.core import env

NAME = "ATRIUM_TEST_ENV_VALUE"
OLD_NAME = "ATRIUM_TEST_ENV_OLD_VALUE"


@pytest.fixture(autouse=True)
def _unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(NAME, raising=False)
    monkeypatch.delenv(OLD_NAME, raising=False)


def refused(match: str) -> AbstractContextManager[pytest.ExceptionInfo[ImproperlyConfigured]]:
    return pytest.raises(ImproperlyConfigured, match=match)


# --- unset, empty, set --------------------------------------------------------------------------


def test_an_unset_variable_gives_the_default():
    assert env.str(NAME, "fallback") == "fallback"
    assert env.str(NAME) == ""
    assert env.bool(NAME, True) is True
    assert env.int(NAME, 7) == 7
    assert env.float(NAME, 2.5) == 2.5
    assert env.list(NAME, ["a"]) == ["a"]
    assert env.int_list(NAME, [1, 2]) == [1, 2]
    assert env.json(NAME, {"a": 1}) == {"a": 1}


def test_a_string_is_kept_as_set_an_empty_one_included(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, " spaced ")
    assert env.str(NAME, "fallback") == " spaced "

    monkeypatch.setenv(NAME, "")
    assert env.str(NAME, "fallback") == ""


def test_a_default_list_or_document_is_a_copy_each_time():
    default = {"model": {"input": 1}}

    first = env.json(NAME, default)
    first["model"]["input"] = 2

    assert default == {"model": {"input": 1}}
    assert env.list(NAME, ["a"]) is not env.list(NAME, ["a"])


# --- booleans -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["1", "true", "TRUE", "Yes", " on "])
def test_true_words_are_true(monkeypatch: pytest.MonkeyPatch, value: str):
    monkeypatch.setenv(NAME, value)
    assert env.bool(NAME, False) is True


@pytest.mark.parametrize("value", ["0", "false", "No", "OFF", "", " "])
def test_false_words_and_empty_are_false(monkeypatch: pytest.MonkeyPatch, value: str):
    monkeypatch.setenv(NAME, value)
    assert env.bool(NAME, True) is False


@pytest.mark.parametrize("value", ["maybe", "2", "enabled", "t"])
def test_any_other_word_is_refused(monkeypatch: pytest.MonkeyPatch, value: str):
    monkeypatch.setenv(NAME, value)
    with refused(f"{NAME} must be true or false .*; it is '{value}'"):
        env.bool(NAME, False)


# --- numbers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"), [("42", 42), (" 12 ", 12), ("+3", 3), ("-4", -4), ("1_000", 1000)]
)
def test_an_integer_is_read_as_python_reads_one(monkeypatch: pytest.MonkeyPatch, value: str, expected: int):
    monkeypatch.setenv(NAME, value)
    assert env.int(NAME, 0) == expected


@pytest.mark.parametrize("value", ["abc", "1.5", "1e3", "0x10", "", " "])
def test_a_malformed_integer_names_the_variable_and_what_it_expects(
    monkeypatch: pytest.MonkeyPatch, value: str
):
    monkeypatch.setenv(NAME, value)
    with refused(f"^The environment variable {NAME} must be an integer; it is '{value}'.$"):
        env.int(NAME, 2)


def test_an_integer_out_of_its_bounds_is_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "0")
    with refused(f"{NAME} must be an integer of at least 1; it is '0'"):
        env.int(NAME, 2, min=1)

    monkeypatch.setenv(NAME, "70000")
    with refused(f"{NAME} must be an integer from 0 to 65535; it is '70000'"):
        env.int(NAME, 25, min=0, max=65535)

    monkeypatch.setenv(NAME, "11")
    with refused(f"{NAME} must be an integer of at most 10"):
        env.int(NAME, 2, max=10)


def test_the_bounds_themselves_are_allowed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "1")
    assert env.int(NAME, 5, min=1, max=1) == 1

    monkeypatch.setenv(NAME, "0.5")
    assert env.float(NAME, 0.1, min=0.5, max=0.5) == 0.5


def test_an_empty_number_stands_for_what_the_setting_says(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "")

    assert env.int(NAME, 5, empty=None) is None
    assert env.float(NAME, 1.0, empty=0.0) == 0.0


@pytest.mark.parametrize(
    ("value", "expected"), [("2.5", 2.5), ("10", 10.0), (" 1e3 ", 1000.0), ("-0.5", -0.5)]
)
def test_a_float_is_read_as_python_reads_one(monkeypatch: pytest.MonkeyPatch, value: str, expected: float):
    monkeypatch.setenv(NAME, value)
    assert env.float(NAME, 0.0) == expected


@pytest.mark.parametrize("value", ["abc", "1e400", "-1e400", "inf", "nan", "1,5", ""])
def test_a_float_that_is_not_a_finite_number_is_refused(monkeypatch: pytest.MonkeyPatch, value: str):
    monkeypatch.setenv(NAME, value)
    with refused(f"{NAME} must be a finite number; it is '{value}'"):
        env.float(NAME, 1.0)


def test_a_float_out_of_its_bounds_is_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "1.5")
    with refused(f"{NAME} must be a finite number from 0 to 1; it is '1.5'"):
        env.float(NAME, 0.1, min=0, max=1)


def test_a_long_malformed_value_is_quoted_in_part(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "x" * 200)

    with pytest.raises(ImproperlyConfigured) as error:
        env.int(NAME, 1)

    assert "x" * 40 + "..." in str(error.value)
    assert "x" * 41 not in str(error.value)


# --- lists --------------------------------------------------------------------------------------


def test_a_list_is_split_on_commas_and_stripped_and_skips_empty_items(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, " a.example ,, b.example,")
    assert env.list(NAME, ["*"]) == ["a.example", "b.example"]

    monkeypatch.setenv(NAME, "")
    assert env.list(NAME, ["*"]) == []


def test_a_list_of_integers_is_read_item_by_item(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "5, 300,,1800 ")
    assert env.int_list(NAME, [1], min=0) == [5, 300, 1800]

    monkeypatch.setenv(NAME, "")
    assert env.int_list(NAME, [1]) == []


@pytest.mark.parametrize("value", ["5,x,10", "5,-1"])
def test_a_list_of_integers_with_a_bad_item_is_refused_whole(monkeypatch: pytest.MonkeyPatch, value: str):
    monkeypatch.setenv(NAME, value)
    with refused(f"{NAME} must be a comma-separated list of integers of at least 0; it is '{value}'"):
        env.int_list(NAME, [1], min=0)


# --- JSON ---------------------------------------------------------------------------------------


def test_a_json_document_is_parsed(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, '{"model": {"input": 1.5, "output": "2"}}')
    assert env.json(NAME, {}, expect=dict) == {"model": {"input": 1.5, "output": "2"}}


def test_bad_json_is_refused_without_quoting_the_value(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, '{"key": "sk-secret",}')

    with pytest.raises(ImproperlyConfigured) as error:
        env.json(NAME, {}, expect=dict)

    assert str(error.value).startswith(
        f"The environment variable {NAME} must be a JSON object; it does not parse"
    )
    assert "sk-secret" not in str(error.value)


def test_json_of_another_type_than_expected_is_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "[1, 2]")
    with refused(f"^The environment variable {NAME} must be a JSON object.$"):
        env.json(NAME, {}, expect=dict)


def test_empty_json_is_malformed_unless_the_setting_gives_it_a_meaning(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, "")

    assert env.json(NAME, {"a": 1}, empty={}) == {}
    with refused(f"{NAME} must be a JSON document; it does not parse"):
        env.json(NAME, {"a": 1})


# --- renamed variables --------------------------------------------------------------------------


def test_a_renamed_variable_is_still_read_under_its_former_name(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(OLD_NAME, "30")
    assert env.int(NAME, 60, formerly=OLD_NAME) == 30


def test_the_new_name_wins_over_the_former_one(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(OLD_NAME, "30")
    monkeypatch.setenv(NAME, "")

    assert env.int(NAME, 5, empty=None, formerly=OLD_NAME) is None
    assert env.str(NAME, "x", formerly=OLD_NAME) == ""


def test_a_malformed_value_under_the_former_name_is_reported_under_that_name(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(OLD_NAME, "abc")
    with refused(f"^The environment variable {OLD_NAME} must be an integer of at least 0; it is 'abc'.$"):
        env.int(NAME, 60, min=0, formerly=OLD_NAME)


@pytest.mark.parametrize(
    ("read", "value", "expected"),
    [
        (lambda: env.bool(NAME, False, formerly=OLD_NAME), "yes", True),
        (lambda: env.float(NAME, 1.0, formerly=OLD_NAME), "2.5", 2.5),
        (lambda: env.list(NAME, [], formerly=OLD_NAME), "a,b", ["a", "b"]),
        (lambda: env.int_list(NAME, [], formerly=OLD_NAME), "1,2", [1, 2]),
        (lambda: env.json(NAME, {}, formerly=OLD_NAME), "[1]", [1]),
    ],
)
def test_every_reader_falls_back_to_the_former_name(monkeypatch: pytest.MonkeyPatch, read, value, expected):
    monkeypatch.setenv(OLD_NAME, value)
    assert read() == expected


# --- networks -----------------------------------------------------------------------------------


def test_networks_are_addresses_or_cidr_networks(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NAME, " 172.30.80.2, 10.0.0.0/8,,2001:db8::/32 ")

    assert env.networks(NAME, []) == ["172.30.80.2/32", "10.0.0.0/8", "2001:db8::/32"]
    monkeypatch.setenv(NAME, "")
    assert env.networks(NAME, ["10.0.0.0/8"]) == []


@pytest.mark.parametrize("value", ["10.0.0.1/8", "proxy.internal", "300.1.1.1", "10.0.0.0/33"])
def test_a_network_that_is_not_one_is_refused(monkeypatch: pytest.MonkeyPatch, value: str):
    monkeypatch.setenv(NAME, f"127.0.0.1,{value}")

    with refused(f"{NAME} must be a comma-separated list of IP addresses or networks"):
        env.networks(NAME, [])
