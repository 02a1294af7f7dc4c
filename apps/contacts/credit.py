"""Credit checks through an outside credit bureau.

`configured_bureau()` gives the bureau set up in settings, or None; then getContactCreditCheck
answers a clear tool error (CREDIT_CHECK_NOT_CONFIGURED), never a made-up report.

The HTTP bureau speaks this protocol (a bureau's own API is adapted to it by a small gateway, or
a new `CreditBureau` is written for it):

    POST {ATRIUM_CREDIT_BUREAU_URL}/v1/checks
    Authorization: Bearer {ATRIUM_CREDIT_BUREAU_KEY}
    Content-Type: application/json

    {"reference": "contact-12", "purpose": "credit_application",
     "subject": {"type": "person" | "organisation", "name": "...", "first_name": "...",
                 "last_name": "...", "email": "...", "phone": "+44...", "street": "...",
                 "city": "...", "postal_code": "...", "country": "GB",
                 "date_of_birth": "1990-01-31" | null, "registration_number": "..." | null}}

    200 {"reference": "<the bureau's id of the report>", "score": 0-1000 | null,
         "band": "A" .. "E" (or the bureau's own), "summary": "...", "checked_at": ISO 8601}
    404 no file on this subject · 422 {"error": "..."} not enough to identify the subject
    401 / 403 bad key · 429 / 5xx try later
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import httpx
from django.conf import settings
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from apps.contacts import errors
from apps.contacts.models import Contact
from apps.core import outbound

PURPOSES = ("credit_application", "account_opening", "contract", "debt_collection")


@dataclass(frozen=True)
class CreditSubject:
    reference: str
    type: str
    name: str
    first_name: str
    last_name: str
    email: str
    phone: str
    street: str
    city: str
    postal_code: str
    country: str
    date_of_birth: str | None
    registration_number: str | None

    @classmethod
    def of(cls, contact: Contact) -> "CreditSubject":
        data = contact.data or {}
        registration = data.get("registrationNumber") or data.get("registration_number")
        return cls(
            reference=f"contact-{contact.pk}",
            type=contact.kind,
            name=contact.display_name,
            first_name=contact.first_name,
            last_name=contact.last_name,
            email=contact.email,
            phone=contact.phone or contact.mobile,
            street=contact.street,
            city=contact.city,
            postal_code=contact.postal_code,
            country=contact.country,
            date_of_birth=contact.birthday.isoformat() if contact.birthday else None,
            registration_number=str(registration) if registration else None,
        )

    def as_json(self) -> dict[str, Any]:
        body = dict(self.__dict__)
        body.pop("reference")
        return body


@dataclass(frozen=True)
class CreditReport:
    reference: str
    score: int | None
    band: str
    summary: str
    checked_at: datetime | None


class CreditBureau(Protocol):
    name: str

    def check(self, subject: CreditSubject, *, purpose: str) -> CreditReport: ...


class HttpCreditBureau:
    name = "http"

    def __init__(self, url: str, key: str, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.key = key
        self.timeout = timeout

    def check(self, subject: CreditSubject, *, purpose: str) -> CreditReport:
        outbound.reached("credit bureau")
        try:
            response = httpx.post(
                f"{self.url}/v1/checks",
                json={"reference": subject.reference, "purpose": purpose, "subject": subject.as_json()},
                headers={"Authorization": f"Bearer {self.key}", "Accept": "application/json"},
                timeout=self.timeout,
            )
        except httpx.HTTPError as error:
            raise errors.BureauUnreachable() from error
        status = response.status_code
        if status == 200:
            return self._report(response)
        if status == 404:
            raise errors.NoCreditFile()
        if status == 422:
            raise errors.SubjectUnclear(
                reason=_error_text(response) or _("not enough details to identify the subject")
            )
        if status in (401, 403):
            raise errors.BureauRefusedCredentials()
        raise errors.BureauDown(status=status)

    def _report(self, response: httpx.Response) -> CreditReport:
        try:
            body = response.json()
            score = body.get("score")
            return CreditReport(
                reference=str(body["reference"]),
                score=int(score) if score is not None else None,
                band=str(body.get("band") or ""),
                summary=str(body.get("summary") or ""),
                checked_at=parse_datetime(body["checked_at"]) if body.get("checked_at") else None,
            )
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise errors.BureauUnreadable() from error


def _error_text(response: httpx.Response) -> str:
    try:
        return str(response.json().get("error", ""))[:300]
    except ValueError:
        return ""


def configured_bureau() -> CreditBureau | None:
    url = getattr(settings, "ATRIUM_CREDIT_BUREAU_URL", "")
    key = getattr(settings, "ATRIUM_CREDIT_BUREAU_KEY", "")
    if not url or not key:
        return None
    return HttpCreditBureau(url, key, timeout=getattr(settings, "ATRIUM_CREDIT_BUREAU_TIMEOUT", 10.0))
