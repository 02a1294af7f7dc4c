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


# --- the company register: the Companies House public data API ---------------------------------

REGISTER_KEY = "loopback-register-key"


def register_company(
    number: str = "09876543",
    name: str = "ACME WIDGETS LIMITED",
    *,
    incorporated: str = "2019-05-13",
    officers: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The three documents the register keeps of one company: profile, officers, filing history."""
    return {
        "profile": {
            "company_number": number,
            "company_name": name,
            "company_status": "active",
            "type": "ltd",
            "jurisdiction": "england-wales",
            "date_of_creation": incorporated,
            "registered_office_address": {
                "address_line_1": "1 Widget Street",
                "locality": "London",
                "postal_code": "EC1A 1BB",
            },
            "sic_codes": ["62020"],
            "accounts": {
                "accounting_reference_date": {"day": "31", "month": "05"},
                "next_accounts": {"period_end_on": "2026-05-31", "due_on": "2027-02-28"},
            },
            "confirmation_statement": {"next_made_up_to": "2027-05-13", "next_due": "2027-05-27"},
        },
        "officers": {
            "items": officers
            if officers is not None
            else [
                {"name": "DOE, Jane", "officer_role": "director", "appointed_on": incorporated},
                {
                    "name": "ROE, Richard",
                    "officer_role": "secretary",
                    "appointed_on": incorporated,
                    "resigned_on": "2022-01-31",
                },
            ]
        },
        "filing-history": {
            "items": [
                {
                    "date": "2026-05-20",
                    "type": "CS01",
                    "category": "confirmation-statement",
                    "description": "confirmation-statement-with-no-updates",
                },
                {
                    "date": "2026-02-10",
                    "type": "AA",
                    "category": "accounts",
                    "description": "accounts-with-accounts-type-micro-entity",
                },
            ]
        },
    }


class Register:
    """A loopback company register: its companies by number, the requests it got (path, whether
    the key was right), and how many answers it gives before its rate limit (None: no limit)."""

    def __init__(self, *companies: dict[str, Any], limit: int | None = None) -> None:
        self.companies = {company["profile"]["company_number"]: company for company in companies}
        self.limit = limit
        self.requests: list[tuple[str, bool]] = []
        self.url = ""


@contextlib.contextmanager
def companies_house(register: Register) -> Iterator[Register]:
    """Serves `register` on loopback and points the Accounting settings at it with its key."""
    import base64
    import json
    import re

    from django.test import override_settings

    expected = "Basic " + base64.b64encode(f"{REGISTER_KEY}:".encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            authorised = self.headers.get("Authorization") == expected
            register.requests.append((self.path, authorised))
            if not authorised:
                return self.answer(401, {"error": "Invalid Authorization", "type": "ch:service"})
            if register.limit is not None and len(register.requests) > register.limit:
                return self.answer(429, {"error": "Too many requests"}, {"Retry-After": "120"})
            found = re.fullmatch(
                r"/company/([A-Z0-9]+)(?:/(officers|filing-history))?", self.path.split("?")[0]
            )
            company = register.companies.get(found.group(1)) if found else None
            if company is None:
                return self.answer(
                    404, {"errors": [{"error": "company-profile-not-found", "type": "ch:service"}]}
                )
            return self.answer(200, company[found.group(2) or "profile"])  # type: ignore[union-attr]

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    register.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with override_settings(
            ATRIUM_ACCOUNTING_REGISTER_URL=register.url, ATRIUM_ACCOUNTING_REGISTER_API_KEY=REGISTER_KEY
        ):
            yield register
    finally:
        server.shutdown()
        server.server_close()
