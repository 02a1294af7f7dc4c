"""The headless browser itself: one Chromium process per session, with its own profile (cookies,
storage: never shared between sessions, people or workspaces), started detached so that it
outlives the request that opened it, and driven call by call over the DevTools protocol with
Playwright (`connect_over_cdp`). `playwright install` is not needed: the system's Chromium
(ATRIUM_BROWSER_CHROMIUM) is used. Every request a page makes while a call drives it is checked
against the service's outbound rule (apps.core.outbound: private, link-local and metadata
addresses refused; loopback only where WEBHOOKS_ALLOW_LOOPBACK is set)."""

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

from apps.browser import errors
from apps.core import outbound

# Schemes a page may load besides http(s): its own inline and generated content.
INNER_SCHEMES = {"data", "blob", "about"}
# A file in each profile saying when its browser started (for `sweep`).
STARTED = ".atrium-started"


@dataclass(frozen=True)
class Process:
    pid: int
    port: int
    profile: str


def chromium() -> str:
    path = settings.ATRIUM_BROWSER_CHROMIUM
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise errors.NoBrowser(path=path or "(none set)")
    return path


def _flags(profile: Path) -> list[str]:
    flags = [
        "--headless=new",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-sync",
        "--mute-audio",
        "--window-size=1280,800",
        f"--js-flags=--max-old-space-size={settings.ATRIUM_BROWSER_HEAP_MB}",
    ]
    if os.geteuid() == 0:
        # Chromium refuses to start its sandbox as root (containers often run as root).
        flags.append("--no-sandbox")
    return [*flags, "about:blank"]


def launch(name: str) -> Process:
    """A new Chromium with an empty profile under ATRIUM_BROWSER_DIR/`name`, listening for
    DevTools on a loopback port it picks."""
    binary = chromium()
    profile = Path(settings.ATRIUM_BROWSER_DIR) / name
    profile.mkdir(parents=True, mode=0o700)
    (profile / STARTED).write_text(str(time.time()))
    started = subprocess.Popen(  # noqa: S603 (our own binary and flags)
        [binary, *_flags(profile)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    active = profile / "DevToolsActivePort"
    deadline = time.monotonic() + settings.ATRIUM_BROWSER_START_SECONDS
    while time.monotonic() < deadline:
        if started.poll() is not None:
            break
        with contextlib.suppress(FileNotFoundError, ValueError, IndexError):
            port = int(active.read_text().split()[0])
            return Process(pid=started.pid, port=port, profile=str(profile))
        time.sleep(0.05)
    stop(started.pid, str(profile))
    raise errors.BrowserFailed(what=_("start"), problem=_("Chromium did not open its DevTools port"))


def _ours(pid: int, profile: str) -> bool:
    """The process is still the Chromium of this profile (a pid can be reused)."""
    try:
        return profile.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def alive(pid: int, profile: str) -> bool:
    return bool(pid) and _ours(pid, profile)


# How long `stop` waits for a killed Chromium to be gone (a SIGKILL takes effect soon, not at once).
STOP_WAIT_SECONDS = 5.0


def stop(pid: int, profile: str) -> None:
    """The session's Chromium (its whole process group) killed, waited for until it is gone (or
    STOP_WAIT_SECONDS), and its profile deleted."""
    if pid and _ours(pid, profile):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        # Reaped when it is this process's child; another's child is a zombie with no command
        # line until its parent reaps it, which is no longer "ours" either.
        ends = time.monotonic() + STOP_WAIT_SECONDS
        while True:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
            if not _ours(pid, profile) or time.monotonic() > ends:
                break
            time.sleep(0.01)
    if profile and Path(profile).parent == Path(settings.ATRIUM_BROWSER_DIR):
        shutil.rmtree(profile, ignore_errors=True)


def refusal(url: str, checked: dict[str, str | None] | None = None) -> str | None:
    """Why the browser may not load `url` (None: it may); `checked` remembers hosts already seen
    in this call."""
    parts = urlsplit(url)
    if parts.scheme in INNER_SCHEMES:
        return None
    if parts.scheme not in {"http", "https"}:
        return _("only http and https addresses are opened.")
    if "@" in parts.netloc:
        return _(
            "an address with a user name or password in it is not opened: open the page, and fill "
            "its password from the vault (vault:item/<id>)."
        )
    key = f"{parts.scheme}://{parts.netloc}"
    if checked is not None and key in checked:
        return checked[key]
    why: str | None = None
    try:
        outbound.check_url(
            url,
            noun=_("The address"),
            allow_loopback=settings.WEBHOOKS_ALLOW_LOOPBACK,
            require_resolution=True,
        )
    except outbound.UnsafeUrl as unsafe:
        why = unsafe.message
    if checked is not None:
        checked[key] = why
    return why


@contextlib.contextmanager
def page_of(process: Process) -> Iterator[Any]:
    """The session's page, for one call: every request it makes meanwhile checked first."""
    from playwright.sync_api import Error, sync_playwright

    checked: dict[str, str | None] = {}

    def guard(route: Any) -> None:
        if refusal(route.request.url, checked) is None:
            route.continue_()
        else:
            route.abort("blockedbyclient")

    try:
        with sync_playwright() as playwright:
            try:
                browser = playwright.chromium.connect_over_cdp(
                    f"http://127.0.0.1:{process.port}", timeout=settings.ATRIUM_BROWSER_START_SECONDS * 1000
                )
            except Error as failed:
                raise errors.BrowserFailed(what=_("be reached"), problem=_first_line(failed)) from None
            context = browser.contexts[0] if browser.contexts else browser.new_context()
            context.route("**/*", guard)
            page = context.pages[-1] if context.pages else context.new_page()
            page.set_default_timeout(settings.ATRIUM_BROWSER_CALL_SECONDS * 1000)
            yield page
    except Error as failed:
        raise errors.BrowserFailed(what=_("finish"), problem=_first_line(failed)) from None


def _first_line(failed: Exception) -> str:
    return str(failed).strip().splitlines()[0][:300] if str(failed).strip() else type(failed).__name__


def sweep(older_than: float) -> int:
    """Profiles under ATRIUM_BROWSER_DIR older than `older_than` seconds, with their Chromium: the
    ones no session row ended (a call rolled back after its browser started, a server restarted).
    Every session has ended by then (its lifetime is shorter)."""
    root = Path(settings.ATRIUM_BROWSER_DIR)
    if not root.is_dir():
        return 0
    cutoff = time.time() - older_than
    swept = 0
    for profile in root.iterdir():
        try:
            started = float((profile / STARTED).read_text())
        except (OSError, ValueError):
            started = profile.stat().st_mtime if profile.is_dir() else time.time()
        if not profile.is_dir() or started > cutoff:
            continue
        for proc in Path("/proc").iterdir():
            if proc.name.isdigit() and _ours(int(proc.name), str(profile)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(int(proc.name), signal.SIGKILL)
        shutil.rmtree(profile, ignore_errors=True)
        swept += 1
    return swept
