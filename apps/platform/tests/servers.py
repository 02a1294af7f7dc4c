"""Small HTTP servers on loopback for the Platform area's tests: an outside API that records what
it was sent and answers what a test tells it (`Api`), and an OAuth 2.0 token and revocation
endpoint (RFC 6749 4.1.3 and 6, RFC 7636, RFC 7009: `OAuthServer`)."""

import base64
import hashlib
import json
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Received:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] | None = None


class _Server:
    """A threaded HTTP server on 127.0.0.1 that hands each request to `answer`."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                got = Received(
                    method=self.command,
                    path=parts.path,
                    query=parse_qs(parts.query),
                    headers={name.lower(): value for name, value in self.headers.items()},
                    body=body,
                )
                owner.received.append(got)
                reply = owner.answer(got)
                self.send_response(reply.status)
                for name, value in (reply.headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(reply.body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _any

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def answer(self, got: Received) -> Reply:
        raise NotImplementedError

    def start(self) -> "_Server":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "_Server":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def as_json(value: Any, status: int = 200, **headers: str) -> Reply:
    return Reply(status, json.dumps(value).encode(), {"Content-Type": "application/json", **headers})


class Api(_Server):
    """An outside API: `routes` maps a path to the reply (or a function of the request making it);
    any other path answers 200 with what was asked, as JSON."""

    def __init__(self, routes: dict[str, Reply | Callable[[Received], Reply]] | None = None) -> None:
        super().__init__()
        self.routes = routes or {}

    def answer(self, got: Received) -> Reply:
        route = self.routes.get(got.path)
        if route is None:
            return as_json({"method": got.method, "path": got.path, "query": got.query})
        return route(got) if callable(route) else route


class OAuthServer(_Server):
    """An authorization server's token and revocation endpoints (the authorization page is the
    person's part: a test takes its `code` straight from `authorize`)."""

    def __init__(self, *, client_id: str, client_secret: str, expires_in: int = 3600) -> None:
        super().__init__()
        self.client_id, self.client_secret, self.expires_in = client_id, client_secret, expires_in
        # code -> (code_challenge, redirect_uri)
        self.codes: dict[str, tuple[str, str]] = {}
        self.refresh_tokens: set[str] = set()
        self.access_tokens: set[str] = set()
        self.revoked: list[str] = []

    def authorize(self, url: str) -> str:
        """What the authorization page does once the person allows it: a code for the request of
        `url` (its PKCE challenge and redirect URI kept), and the redirect's URL."""
        query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
        assert query["response_type"] == "code" and query["client_id"] == self.client_id
        assert query["code_challenge_method"] == "S256"
        code = secrets.token_urlsafe(16)
        self.codes[code] = (query["code_challenge"], query["redirect_uri"])
        return f"{query['redirect_uri']}?code={code}&state={query['state']}"

    def _client_ok(self, got: Received, form: dict[str, str]) -> bool:
        header = got.headers.get("authorization", "")
        if header.startswith("Basic "):
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
            return (user, password) == (self.client_id, self.client_secret)
        return (form.get("client_id"), form.get("client_secret")) == (self.client_id, self.client_secret)

    def _tokens(self) -> Reply:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access_tokens.add(access)
        self.refresh_tokens.add(refresh)
        return as_json(
            {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": self.expires_in,
                "refresh_token": refresh,
                "scope": "calendar email",
            },
            **{"Cache-Control": "no-store"},
        )

    def answer(self, got: Received) -> Reply:
        form = {name: values[0] for name, values in parse_qs(got.body.decode()).items()}
        if not self._client_ok(got, form):
            return as_json({"error": "invalid_client"}, 401)
        if got.path == "/revoke":
            self.revoked.append(form.get("token", ""))
            return Reply(200)
        if got.path != "/token":
            return Reply(404)
        if form.get("grant_type") == "authorization_code":
            kept = self.codes.pop(form.get("code", ""), None)
            if kept is None:
                return as_json({"error": "invalid_grant"}, 400)
            challenge, redirect_uri = kept
            verifier = form.get("code_verifier", "")
            made = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if made != challenge or form.get("redirect_uri") != redirect_uri:
                return as_json({"error": "invalid_grant"}, 400)
            return self._tokens()
        if form.get("grant_type") == "refresh_token":
            if form.get("refresh_token") not in self.refresh_tokens:
                return as_json({"error": "invalid_grant"}, 400)
            self.refresh_tokens.discard(form["refresh_token"])
            return self._tokens()
        return as_json({"error": "unsupported_grant_type"}, 400)
