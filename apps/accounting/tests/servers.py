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


# --- the outside ledger: the Xero Accounting API ---------------------------------------------------

LEDGER_TOKEN = "loopback-ledger-token"
LEDGER_TENANT = "0e5f3b1c-loopback-organisation"
LEDGER_IDS = {
    "Contacts": "ContactID",
    "Invoices": "InvoiceID",
    "CreditNotes": "CreditNoteID",
    "Payments": "PaymentID",
}


class Ledger:
    """A loopback outside ledger: what it holds per collection by id, the requests it got
    (method, collection, element, idempotency key), and how it misbehaves: `refuse` maps a
    collection to the validation message it answers with (HTTP 400), `limited` is how many
    answers are 429 with `retry_after`, `broken` how many are 500."""

    def __init__(self) -> None:
        self.held: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in LEDGER_IDS}
        self.requests: list[tuple[str, str, dict[str, Any], str]] = []
        self.refuse: dict[str, str] = {}
        self.limited = 0
        self.retry_after = "30"
        self.broken = 0
        self.by_key: dict[str, dict[str, Any]] = {}
        self.url = ""


@contextlib.contextmanager
def xero_ledger(ledger: Ledger) -> Iterator[Ledger]:
    """Serves `ledger` on loopback and points the Accounting sync settings at it."""
    import json
    import uuid

    from django.test import override_settings

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

        def validation(self, collection: str, element: dict[str, Any], message: str) -> None:
            self.answer(
                400,
                {
                    "ErrorNumber": 10,
                    "Type": "ValidationException",
                    "Message": "A validation exception occurred",
                    "Elements": [{**element, "ValidationErrors": [{"Message": message}]}],
                },
            )

        def write(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            parts = self.path.strip("/").split("/")
            # A payment is changed at its own address (POST /Payments/{PaymentID}).
            path_id = parts[-1] if len(parts) > 1 and parts[-2] == "Payments" else ""
            collection = "Payments" if path_id else parts[-1]
            key = self.headers.get("Idempotency-Key", "")
            elements = body.get(collection) if isinstance(body, dict) else None
            element = elements[0] if isinstance(elements, list) and elements else {}
            ledger.requests.append((self.command, collection, element, key))
            if self.headers.get("Authorization") != f"Bearer {LEDGER_TOKEN}" or (
                self.headers.get("Xero-tenant-id") != LEDGER_TENANT
            ):
                return self.answer(401, {"Title": "Unauthorized", "Status": 401})
            putting = self.command == "PUT"
            if (
                collection not in LEDGER_IDS
                or (collection == "Payments") != (putting or bool(path_id))
                or (path_id and putting)
            ):
                return self.answer(404, {"Message": "not found"})
            if ledger.limited:
                ledger.limited -= 1
                return self.answer(429, {"Message": "rate limit"}, {"Retry-After": ledger.retry_after})
            if ledger.broken:
                ledger.broken -= 1
                return self.answer(500, {"Message": "An error occurred"})
            if key and key in ledger.by_key:
                return self.answer(200, ledger.by_key[key])
            if collection in ledger.refuse:
                return self.validation(collection, element, ledger.refuse[collection])
            if path_id:
                element = {**element, "PaymentID": path_id}
            if collection == "Payments" and not path_id:
                target = element.get("Invoice") or element.get("CreditNote") or {}
                held = ledger.held["Invoices"] | ledger.held["CreditNotes"]
                if not any(target.get(name) in held for name in ("InvoiceID", "CreditNoteID")):
                    return self.validation(collection, element, "Invoice could not be found")
            id_name = LEDGER_IDS[collection]
            remote = element.get(id_name) or str(uuid.uuid4())
            if element.get(id_name) and remote not in ledger.held[collection]:
                return self.validation(collection, element, f"{id_name} {remote} could not be found")
            saved = {**ledger.held[collection].get(remote, {}), **element, id_name: remote}
            ledger.held[collection][remote] = saved
            answer = {"Id": str(uuid.uuid4()), "Status": "OK", collection: [saved]}
            if key:
                ledger.by_key[key] = answer
            return self.answer(200, answer)

        do_POST = write
        do_PUT = write

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    ledger.url = f"http://127.0.0.1:{server.server_address[1]}/api.xro/2.0"
    try:
        with override_settings(
            ATRIUM_ACCOUNTING_SYNC_PROVIDER="xero",
            ATRIUM_ACCOUNTING_SYNC_URL=ledger.url,
            ATRIUM_ACCOUNTING_SYNC_TOKEN=LEDGER_TOKEN,
            ATRIUM_ACCOUNTING_SYNC_TENANT=LEDGER_TENANT,
        ):
            yield ledger
    finally:
        server.shutdown()
        server.server_close()
