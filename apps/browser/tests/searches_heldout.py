"""Held-out requests for the Agent Browser Tab, written from SPEC.md 4.7 and AREAS.md 2.17 before
any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("launch a browser so the agent can log into a web app", "startBrowserSession"),
    ("press the download invoice button in the browser tab", "browserInteract"),
    ("list the links and inputs on the current browser page", "browserExamine"),
    ("in the browser, load the next page of results", ("browserNavigate", "browserInteract")),
]
