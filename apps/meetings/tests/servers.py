"""Zoom as the Video Meeting tests reach it: a real HTTP server on loopback speaking Zoom's
Server-to-Server OAuth token endpoint, GET /v2/users/me and POST /v2/users/me/meetings."""

import base64
import contextlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.core.cache import cache
from django.test import override_settings

from apps.core.testing import answer_json, loopback
from apps.meetings.providers import token_key

ACCOUNT, CLIENT, SECRET = "acct-1", "client-1", "secret-1"


class Zoom:
    """The meetings made, the token requests, and a status to answer meetings with."""

    def __init__(self, *, status: int = 201, answer: dict[str, Any] | None = None) -> None:
        self.status = status
        # What a meeting's answer is made of instead (a test may give the wrong shape).
        self.answer = answer
        self.meetings: list[dict[str, Any]] = []
        self.tokens = 0
        self.url = ""


@contextlib.contextmanager
def zoom(served: Zoom) -> Iterator[Zoom]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            if urlsplit(self.path).path != "/v2/users/me":
                answer_json(self, 404, {"code": 404, "message": "Not found"})
            elif not (self.headers.get("Authorization") or "").startswith("Bearer token-"):
                answer_json(self, 401, {"code": 124, "message": "Invalid access token."})
            else:
                answer_json(self, 200, {"id": "KDcuGIm1QgePTO8WbOqwIQ", "type": 2, "status": "active"})

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
                    answer_json(
                        self, 401, {"reason": "Invalid client_id or client_secret", "error": "invalid_client"}
                    )
                    return
                served.tokens += 1
                answer_json(
                    self,
                    200,
                    {"access_token": f"token-{served.tokens}", "token_type": "bearer", "expires_in": 3599},
                )
                return
            if parts.path != "/v2/users/me/meetings":
                answer_json(self, 404, {"code": 404, "message": "Not found"})
                return
            if not (self.headers.get("Authorization") or "").startswith("Bearer token-"):
                answer_json(self, 401, {"code": 124, "message": "Invalid access token."})
                return
            if served.status != 201:
                answer_json(self, served.status, {"code": 300, "message": "Invalid meeting"})
                return
            asked = json.loads(body)
            served.meetings.append(asked)
            number = 85000000000 + len(served.meetings)
            if served.answer is not None:
                answer_json(self, 201, served.answer)
                return
            answer_json(
                self,
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

    with loopback(Handler) as url:
        served.url = url
        cache.delete(token_key(ACCOUNT, CLIENT, SECRET))
        try:
            with override_settings(
                ATRIUM_MEETINGS_PROVIDER="zoom",
                ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID=ACCOUNT,
                ATRIUM_MEETINGS_ZOOM_CLIENT_ID=CLIENT,
                ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET=SECRET,
                ATRIUM_MEETINGS_ZOOM_API_URL=f"{url}/v2",
                ATRIUM_MEETINGS_ZOOM_OAUTH_URL=f"{url}/oauth/token",
            ):
                yield served
        finally:
            cache.delete(token_key(ACCOUNT, CLIENT, SECRET))
