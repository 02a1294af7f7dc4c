"""What Contacts' tests stand in for: documents and files of other areas (apps.core.kinds.testing
stands them in under the contacts area, installed in the demo), and a credit bureau speaking
apps.contacts.credit's protocol over real HTTP on loopback."""

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from django.test import override_settings

from apps.core.kinds import Item
from apps.core.kinds.testing import Items


def documents(**items: str) -> Items:
    # The contacts area stands in for the Documents area's key: it is installed in the demo.
    return Items(
        "document",
        "contacts",
        {int(key[1:]): Item(int(key[1:]), title) for key, title in items.items()},
    )


def files(**items: str) -> Items:
    return Items(
        "file",
        "contacts",
        {
            int(key[1:]): Item(
                int(key[1:]), title, url=f"/files/{key[1:]}", mime_type="application/pdf", size=1024
            )
            for key, title in items.items()
        },
    )


# --- a credit bureau on loopback, speaking apps.contacts.credit's protocol ------------------------


class Bureau:
    """A credit bureau HTTP server on 127.0.0.1: answers by the subject's name."""

    KEY = "bureau-test-key"

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        bureau = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                bureau.requests.append(
                    {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
                )
                if self.path != "/v1/checks":
                    return self._answer(404, {"error": "no such endpoint"})
                if self.headers.get("Authorization") != f"Bearer {Bureau.KEY}":
                    return self._answer(401, {"error": "bad key"})
                subject = body["subject"]
                name = subject["name"]
                if "Unknown" in name:
                    return self._answer(404, {"error": "no file"})
                if not subject.get("country"):
                    return self._answer(422, {"error": "country is required"})
                if "Busy" in name:
                    return self._answer(503, {"error": "busy"})
                self._answer(
                    200,
                    {
                        "reference": f"rep-{body['reference']}",
                        "score": 712,
                        "band": "B",
                        "summary": f"{subject['type']} in {subject['country']}, no defaults",
                        "checked_at": "2026-01-15T10:00:00+00:00",
                    },
                )

            def _answer(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "Bureau":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def bureau_configured(key: str = Bureau.KEY) -> Iterator[Bureau]:
    with (
        Bureau() as bureau,
        override_settings(ATRIUM_CREDIT_BUREAU_URL=bureau.url, ATRIUM_CREDIT_BUREAU_KEY=key),
    ):
        yield bureau
