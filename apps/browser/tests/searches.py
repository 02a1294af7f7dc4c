"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("open a browser session to work on a website step by step", "startBrowserSession"),
    ("start a headless browser tab for the agent", "startBrowserSession"),
    ("go to the supplier portal's login page in the browser", "browserNavigate"),
    ("navigate the browser tab to this address", "browserNavigate"),
    ("what buttons and fields are on the page open in the browser", "browserExamine"),
    ("take an accessibility snapshot of the browser page with element refs", "browserExamine"),
    ("click the sign in button on the page", "browserInteract"),
    ("fill in the form fields on the website and submit it", "browserInteract"),
    ("type the password from the vault into the login field", "browserInteract"),
    ("get the text and tables of the page open in the browser session", "browserExtract"),
    ("pull the order list from the page the browser is on", "browserExtract"),
]
