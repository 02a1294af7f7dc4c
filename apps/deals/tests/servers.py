"""The enrichment provider the Deals tests stand in for: a real HTTP server on loopback speaking
the JSON person search of apps.deals.enrichment (POST /v1/people/search with X-Api-Key)."""

import contextlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from django.test import override_settings

KEY = "test-enrichment-key"


class Provider:
    """What the server answers (`people`, `status`, `credits`) and the searches it was sent."""

    def __init__(self, people: list[dict[str, Any]], *, status: int = 200, credits: int = 1) -> None:
        self.people, self.status, self.credits = people, status, credits
        self.searches: list[dict[str, Any]] = []
        self.url = ""


@contextlib.contextmanager
def provider(served: Provider) -> Iterator[Provider]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            asked = json.loads(self.rfile.read(length) or b"{}")
            if self.path != "/v1/people/search":
                status, body = 404, {"error": "not found"}
            elif self.headers.get("X-Api-Key") != KEY:
                status, body = 401, {"error": "invalid api key"}
            else:
                served.searches.append(asked)
                status = served.status
                body = {"people": served.people[: asked.get("size", 25)], "credits_used": served.credits}
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with override_settings(ATRIUM_DEALS_ENRICHMENT_URL=served.url, ATRIUM_DEALS_ENRICHMENT_KEY=KEY):
            yield served
    finally:
        server.shutdown()
        server.server_close()
