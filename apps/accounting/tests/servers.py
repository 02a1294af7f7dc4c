"""Outside services the Accounting tests stand in for, as real HTTP servers on loopback speaking
their protocols: the ECB's eurofxref XML for exchange rates."""

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def eurofxref(days: dict[str, dict[str, str]]) -> bytes:
    """An ECB eurofxref document of `days` ({"2026-03-02": {"USD": "1.0812"}})."""
    cubes = "".join(
        f'<Cube time="{day}">'
        + "".join(f'<Cube currency="{c}" rate="{r}"/>' for c, r in rates.items())
        + "</Cube>"
        for day, rates in sorted(days.items(), reverse=True)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
        'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">'
        "<gesmes:subject>Reference rates</gesmes:subject>"
        "<gesmes:Sender><gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>"
        f"<Cube>{cubes}</Cube></gesmes:Envelope>"
    ).encode()


class Served:
    """What one loopback server answers (`body`, `status`) and the paths it was asked for."""

    def __init__(self, body: bytes, status: int = 200, content_type: str = "text/xml") -> None:
        self.body, self.status, self.content_type = body, status, content_type
        self.paths: list[str] = []
        self.url = ""


@contextlib.contextmanager
def serving(served: Served) -> Iterator[Served]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            served.paths.append(self.path)
            self.send_response(served.status)
            self.send_header("Content-Type", served.content_type)
            self.send_header("Content-Length", str(len(served.body)))
            self.end_headers()
            self.wfile.write(served.body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served.url = f"http://127.0.0.1:{server.server_address[1]}/stats/eurofxref/eurofxref-hist-90d.xml"
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
