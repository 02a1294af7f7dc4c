"""The Agent Browser Tab's work: sessions opened, driven and ended, each call logged as a
BrowserAction of the session's owner (the page Settings → Browser sessions shows). A session is
driven only by its owner (the handle is checked against the caller), on the server whose Chromium
holds it, one call at a time (its row is locked for the call)."""

import secrets
import socket
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.browser import engine, errors, snapshot
from apps.browser.models import BrowserAction, BrowserSession
from apps.core import outbound
from apps.core.actors import Actor

DOWNLOADS_FOLDER = "/Browser downloads"
ACTIONS = ("click", "fill", "select", "check", "uncheck", "press")


def _host() -> str:
    return socket.gethostname()


def _log(session: BrowserSession, kind: str, detail: str = "", *, url: str = "") -> None:
    BrowserAction.objects.create(
        session=session, kind=kind, detail=detail[:500], url=url[:2000], created_by=session.owner
    )


# --- opening and ending -------------------------------------------------------------------------


def start(*, actor: Any) -> BrowserSession:
    """A new session for `actor`, within the workspace's limit of open ones."""
    engine.chromium()  # before anything is reaped or counted: no browser, nothing done
    reap()
    most = settings.ATRIUM_BROWSER_MAX_SESSIONS
    if BrowserSession.objects.filter(status=BrowserSession.Status.OPEN).count() >= most:
        raise errors.TooManySessions(most=most, idle=settings.ATRIUM_BROWSER_IDLE_SECONDS)
    handle = f"bs_{secrets.token_urlsafe(24)}"
    process = engine.launch(handle)
    try:
        now = timezone.now()
        session = BrowserSession.objects.create(
            handle=handle,
            owner=actor,
            host=_host(),
            pid=process.pid,
            port=process.port,
            profile=process.profile,
            url="about:blank",
            started_at=now,
            last_used_at=now,
            expires_at=now + timedelta(seconds=settings.ATRIUM_BROWSER_LIFETIME_SECONDS),
        )
        _log(session, BrowserAction.Kind.START)
    except BaseException:
        engine.stop(process.pid, process.profile)
        raise
    return session


def end(session: BrowserSession, why: str) -> None:
    """The session ended: its Chromium stopped (where it runs here), its row kept as a record."""
    if session.host == _host():
        engine.stop(session.pid, session.profile)
    session.status = BrowserSession.Status.ENDED
    session.ended_at = timezone.now()
    session.ended_why = why[:200]
    session.refs = {}
    session.save(update_fields=["status", "ended_at", "ended_why", "refs"])
    _log(session, BrowserAction.Kind.END, why)


def _overdue(session: BrowserSession) -> str:
    now = timezone.now()
    if session.expires_at <= now:
        return _("reached its lifetime of {seconds} seconds").format(
            seconds=settings.ATRIUM_BROWSER_LIFETIME_SECONDS
        )
    if session.last_used_at + timedelta(seconds=settings.ATRIUM_BROWSER_IDLE_SECONDS) <= now:
        return _("idle for {seconds} seconds").format(seconds=settings.ATRIUM_BROWSER_IDLE_SECONDS)
    return ""


def reap() -> int:
    """Ends this workspace's sessions that are idle or past their lifetime, or whose browser is
    gone (Celery beat each minute, and before a session is opened)."""
    ended = 0
    for session in BrowserSession.objects.filter(status=BrowserSession.Status.OPEN):
        why = _overdue(session)
        if not why and session.host == _host() and not engine.alive(session.pid, session.profile):
            why = _("its browser stopped")
        if why:
            end(session, why)
            ended += 1
    return ended


def session_of(*, actor: Any, handle: str, lock: bool = True) -> BrowserSession:
    """The caller's own open session with this handle, locked for the call (`lock`)."""
    rows = BrowserSession.objects.select_for_update() if lock else BrowserSession.objects.all()
    session = (
        rows.select_related("owner")
        .filter(handle=handle, owner=actor, status=BrowserSession.Status.OPEN)
        .first()
    )
    missing = errors.SessionNotFound(idle=settings.ATRIUM_BROWSER_IDLE_SECONDS)
    if session is None:
        raise missing
    if _overdue(session):
        # The refusal rolls the call back: its browser is stopped now, its row marked by `reap`.
        if session.host == _host():
            engine.stop(session.pid, session.profile)
        raise missing
    if session.host != _host():
        raise errors.SessionElsewhere(host=session.host)
    if not engine.alive(session.pid, session.profile):
        raise missing
    return session


def _process(session: BrowserSession) -> engine.Process:
    return engine.Process(pid=session.pid, port=session.port, profile=session.profile)


def _touch(session: BrowserSession, url: str, title: str, **more: Any) -> None:
    """The session's page as the call left it (saved after the call lets go of the browser: the
    Playwright connection runs an event loop, in which the database is not used)."""
    session.url = outbound.without_credentials(url)[:2000]
    session.title = (title or "")[:300]
    session.last_used_at = timezone.now()
    for name, value in more.items():
        setattr(session, name, value)
    session.save(update_fields=["url", "title", "last_used_at", *more])


# --- driving ------------------------------------------------------------------------------------


@dataclass
class Where:
    url: str
    title: str
    status: int | None = None
    downloads: list[dict[str, Any]] = field(default_factory=list)


@transaction.atomic
def navigate(*, actor: Actor, handle: str, url: str) -> Where:
    why = engine.refusal(url)
    if why is not None:
        # The refusal is in the log of tool calls (the call's own rows are rolled back with it).
        raise errors.UrlRefused(url=outbound.without_credentials(url), reason=why)
    session = session_of(actor=actor, handle=handle)
    with engine.page_of(_process(session)) as page:
        response = page.goto(url, wait_until="load")
        status = response.status if response is not None else None
        now_at, title = page.url, page.title()
    _touch(session, now_at, title, refs={})
    _log(session, BrowserAction.Kind.NAVIGATE, session.title, url=session.url)
    return Where(url=session.url, title=session.title, status=status)


@transaction.atomic
def examine(*, actor: Actor, handle: str) -> tuple[BrowserSession, dict[str, Any]]:
    session = session_of(actor=actor, handle=handle)
    number = session.snapshot + 1
    with engine.page_of(_process(session)) as page:
        found = page.evaluate(snapshot.ELEMENTS, number)
        now_at, title = page.url, page.title()
    refs = {
        item["ref"]: {
            "role": item["role"],
            "name": item["name"],
            "submits": item["submits"],
            "inForm": item["inForm"],
        }
        for item in found["elements"]
    }
    _touch(session, now_at, title, snapshot=number, refs=refs)
    _log(session, BrowserAction.Kind.EXAMINE, _("{count} elements").format(count=len(refs)), url=session.url)
    return session, found


@transaction.atomic
def extract(*, actor: Actor, handle: str) -> tuple[BrowserSession, dict[str, Any]]:
    session = session_of(actor=actor, handle=handle)
    with engine.page_of(_process(session)) as page:
        content = page.evaluate(snapshot.CONTENT)
        now_at, title = page.url, page.title()
    _touch(session, now_at, title)
    _log(
        session,
        BrowserAction.Kind.EXTRACT,
        _("{count} characters").format(count=len(content["text"])),
        url=session.url,
    )
    return session, content


def element(session: BrowserSession, ref: str) -> dict[str, Any]:
    """The element `ref` names in the session's last snapshot (StaleRef otherwise)."""
    found = session.refs.get(ref)
    if found is None:
        raise errors.StaleRef(ref=ref, snapshot=session.snapshot)
    return dict(found)


def submits(session: BrowserSession, *, ref: str, action: str, key: str) -> bool:
    """Acting so would submit a form (what browserInteract asks a person to confirm)."""
    found = element(session, ref)
    if action == "click":
        return bool(found["submits"])
    return action == "press" and key.lower() == "enter" and bool(found.get("inForm"))


def check_interaction(
    session: BrowserSession, *, ref: str, action: str, value: str, key: str
) -> dict[str, Any]:
    """The interaction's arguments checked against the snapshot, before anything is asked or done."""
    found = element(session, ref)
    if action in ("fill", "select") and not value:
        raise errors.ValueNeeded(action=action)
    if action == "press" and not key:
        raise errors.ValueNeeded(action=action)
    if action == "fill" and found["role"] not in ("textbox", "combobox", "searchbox"):
        raise errors.NotFillable(ref=ref, role=found["role"])
    return found


@transaction.atomic
def interact(
    *,
    actor: Actor,
    handle: str,
    ref: str,
    action: str,
    value: str = "",
    key: str = "",
    secret: str | None = None,
) -> Where:
    """One action on an element; `secret` (a vault item's value, resolved by the caller for this
    page's host) is typed instead of `value` and never logged."""
    session = session_of(actor=actor, handle=handle)
    found = check_interaction(session, ref=ref, action=action, value=value or (secret or ""), key=key)
    selector = f'[data-atrium-ref="{ref}"]'
    downloads: list[Any] = []
    with engine.page_of(_process(session)) as page:
        page.on("download", lambda download: downloads.append(download))
        target = page.locator(selector)
        if target.count() == 0:
            raise errors.StaleRef(ref=ref, snapshot=session.snapshot)
        if action == "click":
            target.click()
        elif action == "fill" and secret is not None:
            # The secret was resolved for the host the session was last seen on: a page that has
            # sent itself elsewhere since (a timer, a script) gets nothing.
            live, seen = urlsplit(page.url).hostname or "", urlsplit(session.url).hostname or ""
            if live != seen:
                raise errors.PageMovedBeforeSecret(host=live, seen=seen)
            # Marked so that browserExamine never answers it back (snapshot.ELEMENTS), even in a
            # field that is not a password's.
            target.evaluate("(el) => el.setAttribute('data-atrium-secret', '')")
            target.fill(secret)
        elif action == "fill":
            target.fill(value)
        elif action == "select":
            target.select_option(label=value)
        elif action == "check":
            target.check()
        elif action == "uncheck":
            target.uncheck()
        else:
            target.press(key)
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)
        fetched = [_fetched(download) for download in downloads]
        now_at, title = page.url, page.title()
    saved = [_keep(session, download) for download in fetched]
    _touch(session, now_at, title, refs={} if now_at != session.url else session.refs)
    typed = _(" (a vault secret)") if secret is not None else ""
    _log(
        session,
        BrowserAction.Kind.INTERACT,
        f"{action} {ref} {found['role']} “{found['name']}”{typed}",
        url=session.url,
    )
    return Where(url=session.url, title=session.title, downloads=saved)


@dataclass(frozen=True)
class Fetched:
    """A download the page made: its name, its address, and its bytes or why they are not kept."""

    name: str
    url: str
    content: bytes | None
    refused: str = ""


def _fetched(download: Any) -> Fetched:
    """A download's bytes, read while the call holds the browser (checked like any address)."""
    name = download.suggested_filename or "download"
    why = engine.refusal(download.url)
    if why is not None:
        download.cancel()
        return Fetched(name, download.url, None, why)
    path = download.path()
    most = settings.ATRIUM_BROWSER_MAX_DOWNLOAD_BYTES
    if path is None or path.stat().st_size > most:
        return Fetched(name, download.url, None, _("larger than {most} bytes").format(most=most))
    return Fetched(name, download.url, path.read_bytes())


def _keep(session: BrowserSession, download: Fetched) -> dict[str, Any]:
    """A download, into its session owner's Files (private, in DOWNLOADS_FOLDER)."""
    from apps.files import api as files

    if download.content is None:
        return {"name": download.name, "saved": False, "reason": download.refused}
    if not files.may_add(session.owner):
        return {"name": download.name, "saved": False, "reason": _("you may not add files")}
    kept = files.file_create(
        actor=session.owner,
        name=download.name[:255],
        content=download.content,
        folder=files.folder_ensure(actor=session.owner, path=DOWNLOADS_FOLDER),
        origin=_("downloaded in a browser session from {host}").format(
            host=urlsplit(download.url).hostname or ""
        ),
        visibility="private",
    )
    return {"name": kept.name, "saved": True, "fileId": kept.pk}
