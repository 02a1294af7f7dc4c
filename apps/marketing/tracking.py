"""Click and open tracking through the workspace's own endpoints (apps.marketing.public).

Each link of a campaign message is rewritten to the signed redirect `/m/c/<token>/`, whose token
carries the recipient's row and the link (signed, bound to the workspace: nobody makes it send
people elsewhere); the HTML part carries a signed pixel `/m/o/<token>.gif`. Clicks are what the
figures lead with: Apple Mail Privacy Protection fetches every pixel, so opens overcount."""

import re
from typing import Any

from apps.tenancy import links

CLICK_SALT = "marketing.click"
OPEN_SALT = "marketing.open"
MAX_AGE = 400 * 86400  # a message's links keep working for more than a year
LINK = re.compile(r"https?://[^\s<>\"'()\[\]]+")


def click_url(send_id: int, url: str, *, step: bool = False) -> str:
    """`step`: the row is a sequence step's message (a StepSend), not a campaign's (a Send)."""
    payload: dict[str, Any] = {"r": send_id, "u": url, **({"k": "s"} if step else {})}
    return links.page("marketing:click", token=links.sign(payload, salt=CLICK_SALT))


def open_url(send_id: int, *, step: bool = False) -> str:
    payload: dict[str, Any] = {"r": send_id, **({"k": "s"} if step else {})}
    return links.page("marketing:open", token=links.sign(payload, salt=OPEN_SALT))


def read_click(token: str, *, step: bool = False) -> tuple[int, str] | None:
    """The row and link a click token carries, if it is one of `step`'s kind."""
    payload: dict[str, Any] | None = links.unsign(token, salt=CLICK_SALT, max_age=MAX_AGE)
    if payload is None or not isinstance(payload.get("r"), int) or not isinstance(payload.get("u"), str):
        return None
    if not payload["u"].startswith(("https://", "http://")) or (payload.get("k") == "s") != step:
        return None
    return payload["r"], payload["u"]


def read_open(token: str, *, step: bool = False) -> int | None:
    payload = links.unsign(token, salt=OPEN_SALT, max_age=MAX_AGE)
    if payload is None or not isinstance(payload.get("r"), int) or (payload.get("k") == "s") != step:
        return None
    return int(payload["r"])


def tracked(text: str, send_id: int, *, step: bool = False) -> str:
    """`text` with each http(s) link made a tracked one (a trailing full stop or comma stays text)."""

    def swap(found: re.Match[str]) -> str:
        url = found.group(0)
        tail = ""
        while url and url[-1] in ".,;:!?":
            url, tail = url[:-1], url[-1] + tail
        return click_url(send_id, url, step=step) + tail

    return LINK.sub(swap, text)
