"""Twilio as the Agent Dialer's tests reach it: a real HTTP server on loopback speaking the REST
API 2010-04-01 (form-encoded POSTs, HTTP Basic AccountSid:AuthToken) for Calls, Messages,
IncomingPhoneNumbers and OutgoingCallerIds, and making the callbacks Twilio makes, each signed
with X-Twilio-Signature, which a test then posts to the workspace's host (`deliver`)."""

import base64
import contextlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.test import Client, override_settings

from apps.core.testing import answer_json, loopback
from apps.dialer.providers import signature

ACCOUNT, TOKEN = "AC" + "1" * 32, "auth-token-for-tests"
OWNED, VERIFIED = "+12025550143", "+14155550100"
CALL_PRICE = "-0.01300"


@dataclass
class Callback:
    url: str
    params: dict[str, str]
    signature: str


@dataclass
class Twilio:
    """What the server was asked, the callbacks it has to make, and what it answers."""

    status: int = 201
    calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    updates: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    pending: list[Callback] = field(default_factory=list)
    url: str = ""
    # What IncomingPhoneNumbers.json lists (a test may make it the wrong shape).
    incoming: Any = None

    def _signed(self, url: str, params: dict[str, str]) -> None:
        self.pending.append(Callback(url, params, signature(TOKEN, url, params)))

    def answer(self, sid: str, answered_by: str) -> None:
        """The callee's phone answered: Twilio asks the call's Url what to say, with AnsweredBy."""
        call = self.calls[sid]
        call["status"] = "in-progress"
        params = {
            "AccountSid": ACCOUNT,
            "CallSid": sid,
            "CallStatus": "in-progress",
            "From": call["From"],
            "To": call["To"],
            "Direction": "outbound-api",
            "AnsweredBy": answered_by,
        }
        self._signed(call["Url"], params)

    def complete(self, sid: str, seconds: int) -> None:
        """The call ended: its price is set, and the status callback made."""
        call = self.calls[sid]
        call.update(status="completed", duration=str(seconds), price=CALL_PRICE, price_unit="USD")
        params = {
            "AccountSid": ACCOUNT,
            "CallSid": sid,
            "CallStatus": "completed",
            "CallDuration": str(seconds),
            "From": call["From"],
            "To": call["To"],
            "SequenceNumber": "3",
            "Timestamp": "Sun, 06 Dec 2026 02:00:00 +0000",
        }
        self._signed(call["StatusCallback"], params)

    def delivered(self, sid: str) -> None:
        message = self.messages[sid]
        message.update(status="delivered", price="-0.00790", price_unit="USD")
        params = {
            "AccountSid": ACCOUNT,
            "MessageSid": sid,
            "SmsSid": sid,
            "MessageStatus": "delivered",
            "From": message["From"],
            "To": message["To"],
        }
        self._signed(message["StatusCallback"], params)

    def inbound(self, url: str, sender: str, body: str) -> None:
        sid = "SM" + secrets.token_hex(16)
        params = {
            "AccountSid": ACCOUNT,
            "MessageSid": sid,
            "SmsSid": sid,
            "From": sender,
            "To": OWNED,
            "Body": body,
            "NumMedia": "0",
        }
        self._signed(url, params)

    def deliver(self, client: Client) -> list[Any]:
        """Posts the callbacks made so far to the workspace's host, as Twilio does; their answers."""
        answers = []
        pending, self.pending = self.pending, []
        for callback in pending:
            answers.append(
                client.post(
                    urlsplit(callback.url).path, callback.params, HTTP_X_TWILIO_SIGNATURE=callback.signature
                )
            )
        return answers


def _error(handler: BaseHTTPRequestHandler, status: int, code: int, message: str) -> None:
    answer_json(
        handler,
        status,
        {
            "code": code,
            "message": message,
            "status": status,
            "more_info": f"https://www.twilio.com/docs/errors/{code}",
        },
    )


@contextlib.contextmanager
def twilio(served: Twilio) -> Iterator[Twilio]:
    base = f"/2010-04-01/Accounts/{ACCOUNT}"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _authorised(self) -> bool:
            expected = "Basic " + base64.b64encode(f"{ACCOUNT}:{TOKEN}".encode()).decode()
            if self.headers.get("Authorization") != expected:
                _error(self, 401, 20003, "Authenticate")
                return False
            return True

        def do_GET(self) -> None:
            if not self._authorised():
                return
            path = urlsplit(self.path).path
            if path == f"{base}.json":
                answer_json(self, 200, {"sid": ACCOUNT, "status": "active", "type": "Full"})
            elif path == f"{base}/IncomingPhoneNumbers.json":
                incoming = (
                    [{"sid": "PN1", "phone_number": OWNED}] if served.incoming is None else served.incoming
                )
                answer_json(self, 200, {"incoming_phone_numbers": incoming})
            elif path == f"{base}/OutgoingCallerIds.json":
                answer_json(self, 200, {"outgoing_caller_ids": [{"sid": "PN2", "phone_number": VERIFIED}]})
            elif path.startswith(f"{base}/Calls/") and path[len(base) + 7 : -5] in served.calls:
                call = served.calls[path[len(base) + 7 : -5]]
                answer_json(
                    self,
                    200,
                    {
                        "sid": call["sid"],
                        "status": call["status"],
                        "price": call.get("price"),
                        "price_unit": call.get("price_unit", "USD"),
                        "duration": call.get("duration"),
                    },
                )
            elif path.startswith(f"{base}/Messages/") and path[len(base) + 10 : -5] in served.messages:
                message = served.messages[path[len(base) + 10 : -5]]
                answer_json(
                    self,
                    200,
                    {
                        "sid": message["sid"],
                        "status": message["status"],
                        "price": message.get("price"),
                        "price_unit": message.get("price_unit"),
                    },
                )
            else:
                _error(self, 404, 20404, "The requested resource was not found")

        def do_POST(self) -> None:
            if not self._authorised():
                return
            path = urlsplit(self.path).path
            length = int(self.headers.get("Content-Length", "0"))
            form = parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
            given = {key: values[-1] for key, values in form.items()}
            if self.headers.get("Content-Type", "").split(";")[0] != "application/x-www-form-urlencoded":
                _error(self, 400, 20001, "form-encoded parameters expected")
                return
            if served.status != 201:
                _error(self, served.status, 21211, "The 'To' number is not a valid phone number.")
                return
            if path == f"{base}/Calls.json":
                if not all(given.get(key) for key in ("To", "From", "Url")):
                    _error(self, 400, 21205, "Url parameter is required.")
                    return
                sid = "CA" + secrets.token_hex(16)
                served.calls[sid] = {
                    **given,
                    "events": form.get("StatusCallbackEvent", []),
                    "sid": sid,
                    "status": "queued",
                }
                answer_json(
                    self,
                    201,
                    {
                        "sid": sid,
                        "status": "queued",
                        "to": given["To"],
                        "from": given["From"],
                        "price": None,
                        "api_version": "2010-04-01",
                    },
                )
            elif path == f"{base}/Messages.json":
                sid = "SM" + secrets.token_hex(16)
                served.messages[sid] = {**given, "sid": sid, "status": "queued"}
                answer_json(self, 201, {"sid": sid, "status": "queued", "num_segments": "1", "price": None})
            elif path.startswith(f"{base}/Calls/") and path[len(base) + 7 : -5] in served.calls:
                sid = path[len(base) + 7 : -5]
                served.updates.append((sid, given))
                if given.get("Status"):
                    served.calls[sid]["status"] = given["Status"]
                answer_json(self, 200, {"sid": sid, "status": served.calls[sid]["status"]})
            else:
                _error(self, 404, 20404, "The requested resource was not found")

    with loopback(Handler) as url:
        served.url = url
        with override_settings(
            ATRIUM_DIALER_ACCOUNT_SID=ACCOUNT, ATRIUM_DIALER_AUTH_TOKEN=TOKEN, ATRIUM_DIALER_API_URL=url
        ):
            yield served
