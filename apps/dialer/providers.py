"""The telephony provider: one small interface (`Provider`) and one adapter speaking Twilio's REST
API 2010-04-01, which SignalWire's compatible API answers too (ATRIUM_DIALER_API_URL set to
https://<space>.signalwire.com/api/laml).

- `POST {api}/2010-04-01/Accounts/{AccountSid}/Calls.json` (form-encoded; HTTP Basic
  AccountSid:AuthToken) with To, From, Url (the TwiML the call runs, served by the workspace's own
  host), StatusCallback and StatusCallbackEvent, MachineDetection=DetectMessageEnd (answering
  machine detection: the TwiML request then carries AnsweredBy, and a voicemail is dropped after
  the greeting's end);
- `POST .../Calls/{Sid}.json` Status=completed|canceled ends a call, Twiml=... redirects a live one;
- `GET .../Calls/{Sid}.json` reads `price` and `price_unit` once the call is over;
- `POST .../Messages.json` To, From, Body, StatusCallback sends a text message;
- `GET .../IncomingPhoneNumbers.json` and `.../OutgoingCallerIds.json`: the caller ids the account
  may use (numbers it owns, and numbers verified with it).

Callbacks are signed: X-Twilio-Signature is base64(HMAC-SHA1(AuthToken, URL + each POST parameter's
name and value, sorted by name)) (`signature`)."""

import base64
import hashlib
import hmac
import logging
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any, Protocol
from xml.sax.saxutils import escape

import httpx
from django.conf import settings
from django.core.cache import cache

from apps.core import outbound
from apps.dialer import errors
from apps.integrations import api as integrations
from apps.integrations.api import setting

logger = logging.getLogger(__name__)

API_VERSION = "2010-04-01"
# A price at or above this is no call's or text message's (Call.price: 10 digits, 5 decimals).
PRICE_LIMIT = Decimal(10) ** 5
# The longest duration kept, in seconds (a PositiveIntegerField); a call lasts hours at most.
DURATION_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class Placed:
    sid: str
    status: str


@dataclass(frozen=True)
class Priced:
    status: str
    price: Decimal | None
    price_unit: str
    duration: int | None


class Provider(Protocol):
    name: str

    def caller_ids(self) -> list[str]: ...

    def place_call(self, *, to: str, caller_id: str, twiml_url: str, status_url: str) -> Placed: ...

    def update_call(self, sid: str, **fields: str) -> Placed: ...

    def fetch_call(self, sid: str) -> Priced: ...

    def send_message(self, *, to: str, caller_id: str, body: str, status_url: str) -> Placed: ...

    def fetch_message(self, sid: str) -> Priced: ...


def signature(token: str, url: str, params: dict[str, str]) -> str:
    """X-Twilio-Signature of a callback to `url` with form `params`."""
    signed = url + "".join(f"{name}{params[name]}" for name in sorted(params))
    digest = hmac.new(token.encode(), signed.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


def say(text: str, *, voice: str = "", hangup: bool = True) -> str:
    """TwiML that says `text` (escaped) and hangs up."""
    attribute = f' voice="{escape(voice)}"' if voice else ""
    end = "<Hangup/>" if hangup else ""
    spoken = f"<Say{attribute}>{escape(text)}</Say>{end}"
    return f'<?xml version="1.0" encoding="UTF-8"?><Response>{spoken}</Response>'


def price_of(value: Any) -> Decimal | None:
    """The provider's price (a negative string, "-0.01300"), as a positive amount."""
    if value in (None, ""):
        return None
    try:
        price = abs(Decimal(str(value)))
    except InvalidOperation:
        return None
    # Not a number, infinite, or beyond what a call's cost is kept as (10 digits, 5 decimals):
    # not kept, rather than failing the callback that reads it.
    if not price.is_finite() or price >= PRICE_LIMIT:
        return None
    return price


def seconds_of(value: Any) -> int | None:
    """A call's duration the provider gives ("21"), or None when it is none a call lasts (a
    duration is kept in a 32-bit column: beyond it, the provider's answer is not believed)."""
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not text.isdigit() or int(text) > DURATION_LIMIT:
        return None
    return int(text)


class Twilio:
    name = "twilio"

    def __init__(self, *, account_sid: str, token: str, api_url: str, timeout: int) -> None:
        self.account_sid, self.token, self.timeout = account_sid, token, timeout
        self.base = f"{api_url.rstrip('/')}/{API_VERSION}/Accounts/{account_sid}"

    def _request(
        self, method: str, path: str, what: str, data: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        if method == "POST":
            outbound.reached("telephony provider")
        try:
            answer = httpx.request(
                method,
                f"{self.base}{path}",
                data=data,
                auth=(self.account_sid, self.token),
                timeout=self.timeout,
                trust_env=False,
            )
        except httpx.HTTPError as error:
            logger.warning("telephony provider unreachable (%s)", type(error).__name__)
            raise errors.DialerProviderUnreachable(what=what, kind=type(error).__name__) from None
        if answer.status_code in (401, 403):
            raise errors.DialerProviderKeyRefused(what=what, status=answer.status_code)
        try:
            body = answer.json()
        except ValueError:
            raise errors.DialerProviderNotJson(what=what) from None
        if not isinstance(body, dict):
            raise errors.DialerProviderNotJson(what=what)
        if answer.status_code not in (200, 201):
            logger.warning("telephony provider answered %s", answer.status_code)
            code = body.get("code")
            raise errors.DialerProviderHttpError(
                what=what, status=answer.status_code, provider_code=code if isinstance(code, int) else "-"
            )
        return body

    def _placed(self, body: dict[str, Any], what: str) -> Placed:
        sid, status = body.get("sid"), body.get("status")
        if not isinstance(sid, str) or not sid or not isinstance(status, str):
            raise errors.DialerProviderNotJson(what=what)
        return Placed(sid=sid[:64], status=status[:12])

    def caller_ids(self) -> list[str]:
        # Named by the whole credential: another workspace's account SID (not secret) given with
        # another token never reads this account's numbers from the cache.
        key = "dialer:caller-ids:" + hashlib.sha256(f"{self.base}\n{self.token}".encode()).hexdigest()
        kept = cache.get(key)
        if isinstance(kept, list):
            return kept
        numbers: list[str] = []
        for path, listed in (
            ("/IncomingPhoneNumbers.json", "incoming_phone_numbers"),
            ("/OutgoingCallerIds.json", "outgoing_caller_ids"),
        ):
            body = self._request("GET", path, "list the caller ids")
            entries = body.get(listed) or []
            if not isinstance(entries, list):
                raise errors.DialerProviderNotJson(what="list the caller ids")
            for entry in entries:
                number = entry.get("phone_number") if isinstance(entry, dict) else None
                if isinstance(number, str) and number not in numbers:
                    numbers.append(number)
        cache.set(key, numbers, timeout=300)
        return numbers

    def place_call(self, *, to: str, caller_id: str, twiml_url: str, status_url: str) -> Placed:
        what = "place the call"
        body = self._request(
            "POST",
            "/Calls.json",
            what,
            {
                "To": to,
                "From": caller_id,
                "Url": twiml_url,
                "Method": "POST",
                "StatusCallback": status_url,
                "StatusCallbackMethod": "POST",
                "StatusCallbackEvent": ["initiated", "ringing", "answered", "completed"],
                "MachineDetection": "DetectMessageEnd",
            },
        )
        return self._placed(body, what)

    def update_call(self, sid: str, **fields: str) -> Placed:
        what = "change the call"
        return self._placed(self._request("POST", f"/Calls/{sid}.json", what, fields), what)

    def fetch_call(self, sid: str) -> Priced:
        body = self._request("GET", f"/Calls/{sid}.json", "read the call")
        return Priced(
            status=str(body.get("status") or "")[:12],
            price=price_of(body.get("price")),
            price_unit=str(body.get("price_unit") or "")[:3],
            duration=seconds_of(body.get("duration")),
        )

    def fetch_message(self, sid: str) -> Priced:
        body = self._request("GET", f"/Messages/{sid}.json", "read the text message")
        return Priced(
            status=str(body.get("status") or "")[:12],
            price=price_of(body.get("price")),
            price_unit=str(body.get("price_unit") or "")[:3],
            duration=None,
        )

    def send_message(self, *, to: str, caller_id: str, body: str, status_url: str) -> Placed:
        what = "send the text message"
        answer = self._request(
            "POST",
            "/Messages.json",
            what,
            {"To": to, "From": caller_id, "Body": body, "StatusCallback": status_url},
        )
        return self._placed(answer, what)


def missing() -> list[str]:
    return integrations.missing("ATRIUM_DIALER_ACCOUNT_SID", "ATRIUM_DIALER_AUTH_TOKEN")


def provider(tool: str) -> Provider:
    """The configured provider, or DialerNotConfigured naming `tool`."""
    absent = missing()
    if absent:
        raise errors.DialerNotConfigured(tool=tool, missing=", ".join(absent))
    return Twilio(
        account_sid=setting("ATRIUM_DIALER_ACCOUNT_SID"),
        token=setting("ATRIUM_DIALER_AUTH_TOKEN"),
        api_url=setting("ATRIUM_DIALER_API_URL"),
        timeout=settings.ATRIUM_DIALER_TIMEOUT_SECONDS,
    )


def provider_name() -> str:
    """twilio or signalwire (by the API's address), or "" when none is configured."""
    if missing():
        return ""
    return "signalwire" if "signalwire" in setting("ATRIUM_DIALER_API_URL") else "twilio"
