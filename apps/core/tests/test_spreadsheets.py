"""The one guard every export puts before a cell a spreadsheet program would run as a formula."""

import pytest

from apps.core.spreadsheets import FORMULA_STARTS, guarded, unguarded


@pytest.mark.parametrize("start", FORMULA_STARTS)
def test_a_text_starting_as_a_formula_is_written_after_an_apostrophe(start):
    assert guarded(f'{start}HYPERLINK("http://x")') == f'\'{start}HYPERLINK("http://x")'


@pytest.mark.parametrize("text", ["plain", "it's", "'kept as typed", "", "a=b", "'"])
def test_any_other_text_is_written_as_it_is(text):
    assert guarded(text) == text


@pytest.mark.parametrize("text", ["=1+2", "+cmd", "-2+3", "@sum", "'kept", "plain", "'"])
def test_what_was_guarded_reads_back_as_it_was(text):
    assert unguarded(guarded(text)) == text
