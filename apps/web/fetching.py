"""How webExtract reads a page itself: every address checked (apps.core.outbound: DNS resolved,
private, link-local and metadata addresses refused; http as well as https, as pages are served;
no user name or password in it) and reached at the address the check resolved,
each redirect checked again, at most `MAX_REDIRECTS` of them; the site's robots.txt honoured; at
most ATRIUM_WEB_PER_DOMAIN_PER_MINUTE requests to one host a minute; at most
ATRIUM_WEB_MAX_BYTES read within ATRIUM_WEB_FETCH_SECONDS; HTML, plain text and PDF only.
Loopback is reached only where WEBHOOKS_ALLOW_LOOPBACK is set (the local and test settings)."""

import logging
import time
import urllib.robotparser
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx
from django.conf import settings
from django.core.cache import cache
from django.utils.translation import gettext as _

from apps.core import outbound
from apps.web import errors

logger = logging.getLogger(__name__)

AGENT = "AtriumBot"
USER_AGENT = f"Mozilla/5.0 (compatible; {AGENT}/1.0; +https://atrium.example/bot)"
MAX_REDIRECTS = 5
ROBOTS_SECONDS = 3600
ROBOTS_BYTES = 500_000
TYPES = {"text/html", "application/xhtml+xml", "text/plain", "text/markdown", "application/pdf"}


@dataclass(frozen=True)
class Fetched:
    url: str  # the final address, after redirects
    content_type: str  # without its parameters
    charset: str  # as the server named it, or ""
    body: bytes


def _checked(url: str, asked: str) -> outbound.Target:
    """The target of `url` (the address asked, or a redirect's), checked: http or https to public
    addresses, and no user name or password (they would be sent, logged and cached with it)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        parts = None
    if parts is not None and "@" in parts.netloc:
        raise errors.UrlRefused(
            url=outbound.without_credentials(asked),
            reason=_("an address with a user name or password in it is not read; give it without them."),
        )
    try:
        return outbound.check_url(
            url,
            noun=_("The address"),
            allow_loopback=settings.WEBHOOKS_ALLOW_LOOPBACK,
            require_resolution=True,
            allow_http=True,
        )
    except outbound.UnsafeUrl as unsafe:
        raise errors.UrlRefused(url=outbound.without_credentials(asked), reason=unsafe.message) from None


def _remaining(deadline: float, asked: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise errors.FetchTimedOut(url=asked, seconds=settings.ATRIUM_WEB_FETCH_SECONDS)
    return left


def _count(host: str) -> None:
    """One more request to `host` this minute, or DomainBusy past the limit."""
    most = settings.ATRIUM_WEB_PER_DOMAIN_PER_MINUTE
    key = f"web:rate:{host}:{int(time.time() // 60)}"
    cache.add(key, 0, timeout=120)
    try:
        used = cache.incr(key)
    except ValueError:  # expired in between
        cache.set(key, 1, timeout=120)
        used = 1
    if used > most:
        raise errors.DomainBusy(host=host, most=most)


def _get(
    client: httpx.Client, target: outbound.Target, *, deadline: float, asked: str, limit: int
) -> tuple[httpx.Response, bytes]:
    """GET the checked target at the address it resolved to: the answer and at most `limit`
    bytes of its body (PageTooLarge past it)."""
    sent, host, extensions = outbound.pinned(target, target.url)
    _count(f"{target.host}:{target.port}")
    outbound.reached("web page")
    seconds = _remaining(deadline, asked)
    try:
        with client.stream(
            "GET",
            sent,
            headers={
                "Host": host,
                "User-Agent": USER_AGENT,
                "Accept": "text/html,application/pdf,text/*;q=0.8",
            },
            extensions=extensions,
            timeout=httpx.Timeout(seconds),
        ) as response:
            if response.is_redirect:
                return response, b""
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                raise errors.PageTooLarge(url=asked, most=limit)
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > limit:
                    raise errors.PageTooLarge(url=asked, most=limit)
                chunks.append(chunk)
                _remaining(deadline, asked)
            return response, b"".join(chunks)
    except httpx.TimeoutException:
        raise errors.FetchTimedOut(url=asked, seconds=settings.ATRIUM_WEB_FETCH_SECONDS) from None
    except httpx.HTTPError as error:
        logger.info("web page %s unreachable (%s)", target.host, type(error).__name__)
        raise errors.FetchUnreachable(url=asked, kind=type(error).__name__) from None


def _robots_file(
    client: httpx.Client, url: str, *, deadline: float, asked: str
) -> tuple[httpx.Response | None, bytes]:
    """The site's robots.txt answer, its redirects followed (RFC 9309: at least five; each address
    checked as a page's is), or None when there was none to be had (a 5xx's rule: allow nothing).
    Past five redirects the last one is answered: the file is unavailable, which allows all."""
    response: httpx.Response | None = None
    body = b""
    for _hop in range(MAX_REDIRECTS + 1):
        robots = _checked(url, asked)
        try:
            response, body = _get(client, robots, deadline=deadline, asked=asked, limit=ROBOTS_BYTES)
        except (errors.PageUnreadable, errors.PageTooLarge, errors.FetchTimedOut):
            return None, b""
        location = response.headers.get("location", "") if response.is_redirect else ""
        if not location:
            return response, body
        url = urljoin(url, location)
    return response, body


def _robots_allow(client: httpx.Client, target: outbound.Target, *, deadline: float, asked: str) -> bool:
    """Whether the site's robots.txt lets AtriumBot read the target (RFC 9309: none there, or a
    4xx, allows all; a server error or no answer allows nothing). Kept an hour per site."""
    origin = f"{target.scheme}://{target.host}:{target.port}"
    key = f"web:robots:{origin}"
    text = cache.get(key)
    if text is None:
        response, body = _robots_file(client, f"{origin}/robots.txt", deadline=deadline, asked=asked)
        if response is None or response.status_code >= 500:
            text = "User-agent: *\nDisallow: /\n"
        elif response.status_code == 200 and not response.is_redirect:
            text = body.decode("utf-8", errors="replace")
        else:
            text = ""
        cache.set(key, text, timeout=ROBOTS_SECONDS)
    parser = urllib.robotparser.RobotFileParser()
    parser.parse(text.splitlines())
    return parser.can_fetch(AGENT, target.url)


def fetch(url: str) -> Fetched:
    """The page at `url` as the service read it, or the area's error saying why not."""
    deadline = time.monotonic() + settings.ATRIUM_WEB_FETCH_SECONDS
    limit = settings.ATRIUM_WEB_MAX_BYTES
    current = url
    with httpx.Client(follow_redirects=False, trust_env=False) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            target = _checked(current, url)
            if not _robots_allow(client, target, deadline=deadline, asked=url):
                raise errors.RobotsDisallow(url=current)
            response, body = _get(client, target, deadline=deadline, asked=url, limit=limit)
            if response.is_redirect:
                location = response.headers.get("location", "")
                if not location:
                    raise errors.RedirectNowhere(url=url)
                current = urljoin(current, location)
                continue
            if response.status_code != 200:
                raise errors.FetchHttpError(url=url, status=response.status_code)
            kind, _sep, parameters = response.headers.get("content-type", "").partition(";")
            kind = kind.strip().lower() or "application/octet-stream"
            if kind not in TYPES:
                raise errors.UnsupportedContent(url=url, content_type=kind)
            charset = ""
            for parameter in parameters.split(";"):
                name, _eq, value = parameter.partition("=")
                if name.strip().lower() == "charset":
                    charset = value.strip().strip("\"'").lower()
            return Fetched(url=current, content_type=kind, charset=charset, body=body)
    raise errors.TooManyRedirects(url=url, most=MAX_REDIRECTS)


def host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()
