"""Mastodon and Bluesky as the social tests reach them: real HTTP servers on loopback, each
speaking its network's protocol as far as the adapters use it.

Mastodon: GET /api/v1/apps/verify_credentials and /api/v1/accounts/verify_credentials with a
bearer token, POST /api/v1/statuses (form or JSON) keeping Idempotency-Key as Mastodon does (the
same key answers the same status). Bluesky: XRPC com.atproto.server.createSession,
com.atproto.repo.createRecord (a record key taken twice is refused, as a PDS does) and getRecord.
`fail` queues answers to give instead (a status and a body), one per request, for retries."""

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

MASTODON_TOKEN = "loopback-mastodon-token"
BLUESKY_HANDLE = "acme.bsky.social"
BLUESKY_PASSWORD = "abcd-efgh-ijkl-mnop"
BLUESKY_DID = "did:plc:acmeloopback0000000000"


@dataclass
class Served:
    url: str = ""
    # (method, path, headers, body) of every request, in order.
    requests: list[tuple[str, str, dict[str, str], Any]] = field(default_factory=list)
    fail: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    # Mastodon: idempotency key -> status; Bluesky: rkey -> record.
    posted: dict[str, dict[str, Any]] = field(default_factory=dict)

    def posts(self) -> list[dict[str, Any]]:
        return list(self.posted.values())


class _Handler(BaseHTTPRequestHandler):
    served: Served

    def log_message(self, *args: Any) -> None:
        pass

    def _body(self) -> Any:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if "json" in (self.headers.get("Content-Type") or ""):
            return json.loads(raw or b"{}")
        return {key: values[0] for key, values in parse_qs(raw.decode()).items()}

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _handle(self, method: str) -> None:
        body = self._body() if method == "POST" else None
        self.served.requests.append((method, self.path, dict(self.headers.items()), body))
        if self.served.fail:
            self._answer(*self.served.fail.pop(0))
            return
        self.route(method, urlsplit(self.path).path, body)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def route(self, method: str, path: str, body: Any) -> None:
        raise NotImplementedError


class _Mastodon(_Handler):
    def route(self, method: str, path: str, body: Any) -> None:
        if self.headers.get("Authorization") != f"Bearer {MASTODON_TOKEN}":
            self._answer(401, {"error": "The access token is invalid"})
        elif (method, path) == ("GET", "/api/v1/apps/verify_credentials"):
            self._answer(200, {"name": "Atrium", "website": None, "scopes": ["write:statuses"]})
        elif (method, path) == ("GET", "/api/v1/accounts/verify_credentials"):
            self._answer(200, _account(self.served.url))
        elif (method, path) == ("POST", "/api/v1/statuses"):
            text = str(body.get("status") or "")
            if not text:
                self._answer(422, {"error": "Validation failed: Text can't be blank"})
                return
            key = self.headers.get("Idempotency-Key") or f"none-{len(self.served.posted)}"
            if key not in self.served.posted:
                number = str(110000000000000000 + len(self.served.posted))
                self.served.posted[key] = {
                    "id": number,
                    "uri": f"{self.served.url}/users/acme/statuses/{number}",
                    "url": f"{self.served.url}/@acme/{number}",
                    "content": f"<p>{text}</p>",
                    "text": text,
                    "visibility": body.get("visibility", "public"),
                    "created_at": "2026-03-02T10:00:00.000Z",
                    "account": _account(self.served.url),
                }
            self._answer(200, self.served.posted[key])
        else:
            self._answer(404, {"error": "Record not found"})


def _account(url: str) -> dict[str, Any]:
    return {
        "id": "109000000000000001",
        "username": "acme",
        "acct": "acme",
        "display_name": "Acme",
        "url": f"{url}/@acme",
        "created_at": "2024-01-01T00:00:00.000Z",
    }


class _Bluesky(_Handler):
    def route(self, method: str, path: str, body: Any) -> None:
        if path == "/xrpc/com.atproto.server.createSession":
            if body.get("identifier") != BLUESKY_HANDLE or body.get("password") != BLUESKY_PASSWORD:
                self._answer(
                    401, {"error": "AuthenticationRequired", "message": "Invalid identifier or password"}
                )
                return
            self._answer(
                200,
                {"accessJwt": _jwt(), "refreshJwt": _jwt(), "handle": BLUESKY_HANDLE, "did": BLUESKY_DID},
            )
            return
        if not (self.headers.get("Authorization") or "").startswith("Bearer "):
            self._answer(401, {"error": "AuthMissing", "message": "Authentication Required"})
        elif path == "/xrpc/com.atproto.repo.createRecord":
            rkey = body.get("rkey") or f"auto{len(self.served.posted)}"
            text = str(body["record"].get("text", ""))
            if len(text) > 3000:
                self._answer(
                    400,
                    {
                        "error": "InvalidRequest",
                        "message": "Record/text must not be longer than 300 graphemes",
                    },
                )
            elif rkey in self.served.posted:
                self._answer(400, {"error": "InvalidRequest", "message": "Record already exists"})
            else:
                self.served.posted[rkey] = {
                    "collection": body["collection"],
                    "repo": body["repo"],
                    **body["record"],
                }
                uri = f"at://{BLUESKY_DID}/{body['collection']}/{rkey}"
                self._answer(200, {"uri": uri, "cid": "bafyreiloopback"})
        elif path == "/xrpc/com.atproto.repo.getRecord":
            query = parse_qs(urlsplit(self.path).query)
            rkey = query.get("rkey", [""])[0]
            if rkey in self.served.posted:
                uri = f"at://{BLUESKY_DID}/app.bsky.feed.post/{rkey}"
                self._answer(200, {"uri": uri, "cid": "bafyreiloopback", "value": self.served.posted[rkey]})
            else:
                self._answer(400, {"error": "RecordNotFound", "message": "Could not locate record"})
        else:
            self._answer(501, {"error": "MethodNotImplemented", "message": "Method Not Implemented"})


def _jwt() -> str:
    # A JWT's shape (header.payload.signature) with an expiry far away: the SDK reads `exp`.
    import base64

    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    claims = {"sub": BLUESKY_DID, "exp": 4102444800, "iat": 1700000000}
    return f"{part({'alg': 'ES256K', 'typ': 'at+jwt'})}.{part(claims)}.c2ln"


@contextlib.contextmanager
def _serving(handler: type[_Handler]) -> Iterator[Served]:
    served = Served()
    bound = type(handler.__name__, (handler,), {"served": served})
    server = ThreadingHTTPServer(("127.0.0.1", 0), bound)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()


def mastodon() -> contextlib.AbstractContextManager[Served]:
    return _serving(_Mastodon)


def bluesky() -> contextlib.AbstractContextManager[Served]:
    return _serving(_Bluesky)
