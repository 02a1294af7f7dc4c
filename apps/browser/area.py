"""The Agent Browser Tab area, as the rest of the service knows it (apps.core.areas): a headless
browser (the system's Chromium) the service runs for a person's agent, one isolated session each,
driven step by step: go to an address, examine the page's elements, act on them, read it."""

import tempfile
from pathlib import Path

from django.utils.translation import gettext_lazy as _

from apps.browser.permissions import BrowserPerm
from apps.core import areas, env
from apps.core.navigation import NavItem

area = areas.declare(
    title=_("Browser sessions"),
    catalogue_title="Agent Browser Tab",
    group=areas.Group.AUTOMATION,
    description=_("A headless browser your agents drive step by step: sign in, click, fill forms, download"),
    words="browser tab session headless chromium click button form fill login sign portal",
    hints={
        "startBrowserSession": (
            "open start launch a headless browser session tab for the agent to work through a website "
            "web app step by step, log in to a portal"
        ),
        "browserNavigate": (
            "go to navigate the browser session tab to an address, its login page, the next page"
        ),
        "browserExamine": (
            "examine snapshot the browser page: what buttons links fields inputs elements are on it, "
            "their refs, accessibility"
        ),
        "browserExtract": "pull the tables, rows and list shown in the browser session tab where it is now",
        "browserInteract": (
            "click press a button link, fill in type into form fields, select check, submit a form, sign in, "
            "type the password from the vault in the browser page"
        ),
    },
    profiles={
        "online": (
            "startBrowserSession",
            "browserNavigate",
            "browserExamine",
            "browserExtract",
            "browserInteract",
        )
    },
    nav=[NavItem("browser", _("Browser sessions"), "browser:sessions", BrowserPerm.VIEW, order=61)],
    not_kinds={
        "browser.BrowserSession": "an agent's headless browser (its settings page), not named or followed",
        "browser.BrowserAction": "a log line of a browser session, not named or followed",
    },
    periodic={"browser-reap": areas.Periodic("apps.browser.tasks.reap", 60)},
    settings={
        # The Chromium the sessions run (Debian's chromium package); none there: the tools say so.
        "ATRIUM_BROWSER_CHROMIUM": env.str("ATRIUM_BROWSER_CHROMIUM", "/usr/bin/chromium"),
        # Where each session's profile lives while it is open (deleted when it ends).
        "ATRIUM_BROWSER_DIR": env.str(
            "ATRIUM_BROWSER_DIR", str(Path(tempfile.gettempdir()) / "atrium-browser")
        ),
        # Open sessions per workspace; a session ends idle this long, or at this age.
        "ATRIUM_BROWSER_MAX_SESSIONS": env.int("ATRIUM_BROWSER_MAX_SESSIONS", 3, min=1),
        "ATRIUM_BROWSER_IDLE_SECONDS": env.int("ATRIUM_BROWSER_IDLE_SECONDS", 600, min=30),
        "ATRIUM_BROWSER_LIFETIME_SECONDS": env.int("ATRIUM_BROWSER_LIFETIME_SECONDS", 3600, min=60),
        # A browser's start, and one call's page loads and actions, at most this long.
        "ATRIUM_BROWSER_START_SECONDS": env.int("ATRIUM_BROWSER_START_SECONDS", 20, min=1),
        "ATRIUM_BROWSER_CALL_SECONDS": env.int("ATRIUM_BROWSER_CALL_SECONDS", 30, min=1),
        # A page's JavaScript heap, and a download kept in Files, at most this large.
        "ATRIUM_BROWSER_HEAP_MB": env.int("ATRIUM_BROWSER_HEAP_MB", 256, min=32),
        "ATRIUM_BROWSER_MAX_DOWNLOAD_BYTES": env.int(
            "ATRIUM_BROWSER_MAX_DOWNLOAD_BYTES", 25 * 1024 * 1024, min=1024
        ),
    },
)
