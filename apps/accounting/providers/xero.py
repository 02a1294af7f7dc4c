"""The outside ledger, as a provider: the Xero Accounting API's shape (room for others, e.g.
QuickBooks Online, behind the same `Provider`).

It speaks JSON over HTTPS with an OAuth2 bearer token and the organisation in the
`Xero-tenant-id` header: `POST /Contacts`, `POST /Invoices` (ACCREC sales invoices, ACCPAY
bills; a POST with the id updates, e.g. to VOIDED), `POST /CreditNotes`, `PUT /Payments` (a
payment deleted: `POST /Payments/{PaymentID}` with its status DELETED). Each
push sends an `Idempotency-Key`, so a push repeated after a lost answer is not made twice.
Answers: 200 with the saved element and its id; 400 a validation error
(`Elements[].ValidationErrors[].Message`); 401/403 a token refused; 429 the rate limit with
`Retry-After` (seconds); 5xx the provider failing.
"""

import logging
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

logger = logging.getLogger(__name__)

# What the API calls each collection and the id of its elements.
COLLECTIONS = {
    "Contacts": "ContactID",
    "Invoices": "InvoiceID",
    "CreditNotes": "CreditNoteID",
    "Payments": "PaymentID",
}


class PushFailed(Exception):
    """A push the provider did not take. `retry_after`: seconds the provider asks to wait (a rate
    limit); `permanent`: the data itself was refused (a validation error), so pushing it again
    unchanged fails again; `stop`: nothing else will go through now (rate limit, token refused)."""

    def __init__(
        self, message: str, *, permanent: bool = False, retry_after: int | None = None, stop: bool = False
    ) -> None:
        super().__init__(message)
        self.message, self.permanent, self.retry_after, self.stop = message, permanent, retry_after, stop


class Provider(Protocol):
    name: str

    def push(self, collection: str, element: dict[str, Any], *, key: str) -> str: ...


def validation_messages(body: Any) -> list[str]:
    """The messages of a validation error answer (`Elements[].ValidationErrors[].Message`)."""
    messages: list[str] = []
    if isinstance(body, dict):
        for element in body.get("Elements") or []:
            errors = element.get("ValidationErrors") if isinstance(element, dict) else None
            for error in errors or []:
                if isinstance(error, dict) and error.get("Message"):
                    messages.append(str(error["Message"]))
        if not messages and body.get("Message"):
            messages.append(str(body["Message"]))
    return messages


def _retry_after(value: str | None) -> int:
    try:
        return max(1, min(int(value or ""), 86_400))
    except ValueError:
        return 60


@dataclass
class Xero:
    url: str
    token: str
    tenant: str
    timeout: float = 20.0
    name: str = "xero"

    def push(self, collection: str, element: dict[str, Any], *, key: str) -> str:
        """Creates or updates one element of `collection`; returns its id in the outside ledger."""
        id_name = COLLECTIONS[collection]
        method = "PUT" if collection == "Payments" else "POST"
        path = collection
        if collection == "Payments" and element.get(id_name):
            # A payment is changed (deleted) at its own address, never put again.
            method, path = "POST", f"Payments/{element[id_name]}"
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/json",
            "Idempotency-Key": key,
        }
        if self.tenant:
            headers["Xero-tenant-id"] = self.tenant
        try:
            response = httpx.request(
                method,
                f"{self.url.rstrip('/')}/{path}",
                json={collection: [element]},
                headers=headers,
                timeout=self.timeout,
            )
        except httpx.HTTPError as error:
            logger.warning("outside ledger unreachable: %s", type(error).__name__)
            raise PushFailed(f"cannot reach the outside ledger ({type(error).__name__})") from error
        try:
            body = response.json()
        except ValueError:
            body = None
        status = response.status_code
        if status == 429:
            wait = _retry_after(response.headers.get("Retry-After"))
            raise PushFailed(f"rate limited; retry after {wait} s", retry_after=wait, stop=True)
        if status in (401, 403):
            raise PushFailed(f"the outside ledger refused the token (HTTP {status})", stop=True)
        if status == 400:
            messages = validation_messages(body) or ["a validation error without a message"]
            raise PushFailed("; ".join(messages)[:2000], permanent=True)
        if status >= 500 or status != 200:
            raise PushFailed(f"the outside ledger answered HTTP {status}")
        saved = (body or {}).get(collection) if isinstance(body, dict) else None
        first = saved[0] if isinstance(saved, list) and saved else None
        remote = first.get(id_name) if isinstance(first, dict) else None
        if not remote:
            raise PushFailed(f"the outside ledger's answer has no {id_name}")
        return str(remote)
