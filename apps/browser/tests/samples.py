"""A normal call of each Agent Browser Tab tool, for the catalogue's contract test: a real session
(the system's Chromium) on a website served on loopback, ended after the calls."""

import contextlib
from collections.abc import Iterator
from typing import Any

from apps.browser import services
from apps.browser.tests.sites import ended_after, portal
from apps.catalogue.testing import Sample, sample
from apps.core.testing import for_the_process

_served: list[Any] = []


def _site() -> Any:
    if not _served:
        _served.append(for_the_process(portal()))
    return _served[0]


def _session(actor: Any, examined: bool = False) -> str:
    session = services.start(actor=actor)
    services.navigate(actor=actor, handle=session.handle, url=f"{_site().url}/login")
    if examined:
        services.examine(actor=actor, handle=session.handle)
    return session.handle


@contextlib.contextmanager
def _ending() -> Iterator[None]:
    with ended_after():
        yield


@sample("startBrowserSession")
def start_browser_session(actor: Any) -> Sample:
    return Sample({}, around=_ending)


@sample("browserNavigate")
def browser_navigate(actor: Any) -> Sample:
    handle = _session(actor)
    return Sample({"sessionId": handle, "url": f"{_site().url}/orders"}, private=[handle], around=_ending)


@sample("browserExamine")
def browser_examine(actor: Any) -> Sample:
    handle = _session(actor)
    return Sample({"sessionId": handle}, private=[handle, "Kestrel supplier portal"], around=_ending)


@sample("browserExtract")
def browser_extract(actor: Any) -> Sample:
    handle = _session(actor)
    return Sample({"sessionId": handle}, private=[handle, "Sign in"], around=_ending)


@sample("browserInteract")
def browser_interact(actor: Any) -> Sample:
    handle = _session(actor, examined=True)
    return Sample(
        {"sessionId": handle, "ref": "s1e1", "action": "fill", "value": "ada@kestrel.example"},
        private=[handle],
        around=_ending,
    )
