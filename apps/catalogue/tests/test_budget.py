"""The budget of the tool definitions: what a model reads of each tool, and of the catalogue."""

import dataclasses
from typing import Annotated

from pydantic import Field, create_model

from apps.catalogue import registry
from apps.catalogue.checks import (
    FIRST_SENTENCE_MAX,
    MODEL_TOKENS_MAX,
    MODEL_TOKENS_MEAN_MAX,
    OUTPUT_TOKENS_MEAN_MAX,
    budget_problems,
    check_catalogue,
    first_sentence,
    model_tokens,
    output_tokens,
    registry_budget_problems,
    tokens,
)
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.catalogue.testing import temporary_tools
from apps.contacts.permissions import ContactsPerm

# An answer of 80 described fields: far over the output schemas' mean on its own.
Sprawl = create_model(
    "Sprawl",
    __base__=Out,
    **{
        f"field{n}": (str, Field(description=f"What field number {n} of this answer says")) for n in range(80)
    },
)


@tool("sprawlingTool", permission=ContactsPerm.VIEW, title="Sprawling", read_only=True, register_it=False)
def sprawling(
    ctx,
    *,
    notes: Annotated[
        str, Field(description="Whatever the caller wants to add, in as many words as it takes " * 40)
    ] = "",
) -> Sprawl:
    """Does one small thing, but says so in a first sentence that goes on and on about it for far
    longer than any agent needs to read before it can tell whether this is the tool it wants."""


def real_tools() -> list[registry.ToolSpec]:
    return [spec for spec in registry.all_tools() if not spec.fixture]


def test_the_catalogue_is_within_its_budget():
    specs = real_tools()

    assert registry_budget_problems(specs) == []
    assert {spec.name: budget_problems(spec) for spec in specs if budget_problems(spec)} == {}
    assert sum(model_tokens(spec) for spec in specs) / len(specs) <= MODEL_TOKENS_MEAN_MAX
    assert sum(output_tokens(spec) for spec in specs) / len(specs) <= OUTPUT_TOKENS_MEAN_MAX
    assert max(model_tokens(spec) for spec in specs) <= MODEL_TOKENS_MAX


def test_an_over_budget_tool_is_reported_by_the_start_up_check():
    spec = sprawling.tool_spec

    problems = budget_problems(spec)

    assert model_tokens(spec) > MODEL_TOKENS_MAX
    assert any(f"at most {MODEL_TOKENS_MAX}" in problem for problem in problems)
    assert any(f"at most {FIRST_SENTENCE_MAX}" in problem for problem in problems)
    with temporary_tools(sprawling):
        messages = [message.msg for message in check_catalogue() if message.id == "atrium.E101"]
    assert any("sprawlingTool" in message and "tokens" in message for message in messages)
    assert any("sprawlingTool" in message and "first sentence" in message for message in messages)


def test_the_means_are_checked_over_the_catalogue():
    problems = registry_budget_problems([sprawling.tool_spec])

    assert len(problems) == 2
    assert f"at most {MODEL_TOKENS_MEAN_MAX}" in problems[0]
    assert f"at most {OUTPUT_TOKENS_MEAN_MAX}" in problems[1]


def test_fixture_tools_of_the_test_settings_are_exempt():
    fixture = dataclasses.replace(sprawling.tool_spec, fixture=True)

    assert budget_problems(fixture) == []
    assert registry_budget_problems([fixture]) == []


def test_tokens_are_the_bytes_of_the_compact_json_over_four():
    assert tokens({"a": [1, 2], "b": "x"}) == len('{"a":[1,2],"b":"x"}') / 4
    assert tokens({"é": 1}) == len('{"\\u00e9":1}') / 4


def test_the_first_sentence_ends_at_a_full_stop_but_not_inside_an_abbreviation():
    assert first_sentence("Hand contacts over, e.g. when someone leaves. More after.") == (
        "Hand contacts over, e.g. when someone leaves."
    )
    assert first_sentence("Combine files into a .pdf file? Yes.") == "Combine files into a .pdf file?"
    assert first_sentence("No full stop at all") == "No full stop at all"
    assert first_sentence("First line\n\nSecond paragraph.") == "First line"
