"""Zoom as the Video Meeting tests reach it: a real HTTP server on loopback speaking Zoom's
Server-to-Server OAuth token endpoint and POST /v2/users/me/meetings."""

import base64
import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.core.cache import cache
from django.test import override_settings

ACCOUNT, CLIENT, SECRET = "acct-1", "client-1", "secret-1"


class Zoom:
    """The meetings made, the token requests, and a status to answer meetings with."""

    def __init__(self, *, status: int = 201) -> None:
        self.status = status
        self.meetings: list[dict[str, Any]] = []
        self.tokens = 0
        self.url = ""


@contextlib.contextmanager
def zoom(served: Zoom) -> Iterator[Zoom]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if parts.path == "/oauth/token":
                basic = base64.b64encode(f"{CLIENT}:{SECRET}".encode()).decode()
                asked = parse_qs(parts.query)
                if self.headers.get("Authorization") != f"Basic {basic}" or asked != {
                    "grant_type": ["account_credentials"],
                    "account_id": [ACCOUNT],
                }:
                    self._answer(
                        401, {"reason": "Invalid client_id or client_secret", "error": "invalid_client"}
                    )
                    return
                served.tokens += 1
                self._answer(
                    200,
                    {"access_token": f"token-{served.tokens}", "token_type": "bearer", "expires_in": 3599},
                )
                return
            if parts.path != "/v2/users/me/meetings":
                self._answer(404, {"code": 404, "message": "Not found"})
                return
            if not (self.headers.get("Authorization") or "").startswith("Bearer token-"):
                self._answer(401, {"code": 124, "message": "Invalid access token."})
                return
            if served.status != 201:
                self._answer(served.status, {"code": 300, "message": "Invalid meeting"})
                return
            asked = json.loads(body)
            served.meetings.append(asked)
            number = 85000000000 + len(served.meetings)
            self._answer(
                201,
                {
                    "id": number,
                    "topic": asked["topic"],
                    "start_time": asked["start_time"],
                    "duration": asked["duration"],
                    "join_url": f"https://us06web.zoom.us/j/{number}?pwd=abc",
                    "start_url": f"https://us06web.zoom.us/s/{number}?zak=host-secret",
                    "password": "k3str3l",
                },
            )

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served.url = f"http://127.0.0.1:{server.server_address[1]}"
    cache.delete(f"meetings:zoom-token:{ACCOUNT}:{CLIENT}")
    try:
        with override_settings(
            ATRIUM_MEETINGS_PROVIDER="zoom",
            ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID=ACCOUNT,
            ATRIUM_MEETINGS_ZOOM_CLIENT_ID=CLIENT,
            ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET=SECRET,
            ATRIUM_MEETINGS_ZOOM_API_URL=f"{served.url}/v2",
            ATRIUM_MEETINGS_ZOOM_OAUTH_URL=f"{served.url}/oauth/token",
        ):
            yield served
    finally:
        cache.delete(f"meetings:zoom-token:{ACCOUNT}:{CLIENT}")
        server.shutdown()
        server.server_close()
