"""Text written into a file a spreadsheet program opens (CSV, XLSX), and read back from one.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is run as a formula by
spreadsheet programs (OWASP's "CSV injection"): a respondent's e-mail address, a contact's name or
a transaction's memo must never become one. Every export writes such a text after an apostrophe
(`guarded`), which the programs show as the text it was; an import takes that one apostrophe away
again (`unguarded`), so that a file exported imports as it was. Numbers are the callers' business:
a number written as one ("-35.50") is read as the number it is, never as a formula.
"""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# What `guarded` puts an apostrophe before and an import therefore takes it away from (a tab or a
# carriage return at a cell's start is lost to the import's stripping anyway).
_GUARDED_STARTS = ("=", "+", "-", "@")


def guarded(text: str) -> str:
    """`text` as a cell no spreadsheet program runs: after an apostrophe when it starts as a formula."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def unguarded(cell: str) -> str:
    """A cell read back without the apostrophe `guarded` put before a formula-like start."""
    if cell.startswith("'") and cell[1:2] in _GUARDED_STARTS:
        return cell[1:]
    return cell
