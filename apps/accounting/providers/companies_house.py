"""The public company register, as a provider: the Companies House public data API.

`provider()` is the one entry point (examineCorporateRegister, registerCompany's prefill). It
speaks the REST API's shape: the key as the HTTP Basic user name (no password), JSON answers,
`GET /company/{number}`, `/company/{number}/officers` and `/company/{number}/filing-history`;
404 is a number the register does not know, 429 its rate limit (600 requests in five minutes),
with Retry-After. With no key configured there is no provider: `RegisterNotConfigured`.
"""

import logging
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

import httpx
from django.conf import settings
from django.utils.translation import gettext as _

from apps.accounting.errors import (
    NotOnRegister,
    RegisterHttpError,
    RegisterNotConfigured,
    RegisterRateLimited,
    RegisterUnavailable,
    RegisterUnreachable,
)
from apps.core.errors import invalid

logger = logging.getLogger(__name__)

# Eight characters: eight digits (England and Wales), or a two-letter prefix and six digits
# (SC Scotland, NI Northern Ireland, OC an LLP, ...). "123456" is "00123456".
NUMBER = re.compile(r"^(?:\d{8}|[A-Z]{2}\d{6}|R0\d{6})$")
SCOTTISH = ("SC", "SO", "SL", "SA", "SF", "SP", "SR", "SZ", "SG")
NORTHERN_IRISH = ("NI", "NC", "NF", "NL", "NO", "NP", "NR", "NZ", "R0")


def company_number(value: str) -> str:
    """The register's form of a company number, or a clear error."""
    number = re.sub(r"\s+", "", value).upper()
    if number.isdigit() and len(number) < 8:
        number = number.zfill(8)
    if not NUMBER.match(number):
        raise invalid("number", _("a company number is 8 digits, or 2 letters and 6 digits (e.g. SC123456)"))
    return number


def jurisdiction_of(number: str) -> str:
    """Where a company is registered, from its number's prefix."""
    if number.startswith(SCOTTISH):
        return "scotland"
    if number.startswith(NORTHERN_IRISH):
        return "northern-ireland"
    return "england-wales"


@dataclass(frozen=True)
class Officer:
    name: str
    role: str
    appointed_on: date | None
    resigned_on: date | None


@dataclass(frozen=True)
class Filed:
    date: date
    form: str
    category: str
    description: str


@dataclass(frozen=True)
class Entry:
    """A company as the register shows it."""

    number: str
    name: str
    status: str
    company_type: str
    jurisdiction: str
    incorporated_on: date
    registered_office: str
    sic_codes: list[str]
    ard: tuple[int, int] | None  # (day, month)
    # The register's own next dates: {"accounts": (made up to, due), "confirmation_statement": ...}
    next_due: dict[str, tuple[date | None, date | None]] = field(default_factory=dict)
    officers: list[Officer] = field(default_factory=list)
    filings: list[Filed] = field(default_factory=list)


class Provider(Protocol):
    name: str

    def company(self, number: str) -> Entry: ...


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except (TypeError, ValueError):
        return None


def _address(found: dict[str, Any]) -> str:
    keys = ("premises", "address_line_1", "address_line_2", "locality", "region", "postal_code", "country")
    return ", ".join(str(found[key]).strip() for key in keys if found.get(key))


def _type(value: str) -> str:
    return value if value in ("ltd", "plc", "llp") else "ltd"


class CompaniesHouse:
    name = "companies-house"

    def __init__(self, *, url: str, key: str, timeout: float = 10.0) -> None:
        self.url, self.key, self.timeout = url.rstrip("/"), key, timeout

    def _get(self, client: httpx.Client, path: str, number: str) -> dict[str, Any]:
        try:
            response = client.get(f"{self.url}{path}")
        except httpx.HTTPError as error:
            logger.warning("company register %s unreachable: %s", self.url, type(error).__name__)
            raise RegisterUnreachable(kind=type(error).__name__) from error
        if response.status_code == 404:
            raise NotOnRegister(number=number)
        if response.status_code == 429:
            wait = response.headers.get("Retry-After", "")
            raise RegisterRateLimited(seconds=wait if wait.isdigit() else "300")
        if response.status_code in (401, 403):
            raise RegisterUnavailable(problem=_("it refused the API key"))
        if response.status_code != 200:
            raise RegisterHttpError(status=response.status_code)
        try:
            found = response.json()
        except ValueError as error:
            raise RegisterUnavailable(problem=_("its answer is not JSON")) from error
        if not isinstance(found, dict):
            raise RegisterUnavailable(problem=_("its answer is not a JSON object"))
        return found

    def company(self, number: str) -> Entry:
        with httpx.Client(
            auth=(self.key, ""), timeout=self.timeout, headers={"Accept": "application/json"}
        ) as client:
            profile = self._get(client, f"/company/{number}", number)
            officers = self._get(client, f"/company/{number}/officers?items_per_page=100", number)
            history = self._get(client, f"/company/{number}/filing-history?items_per_page=25", number)
        incorporated = _day(profile.get("date_of_creation"))
        if not profile.get("company_name") or incorporated is None:
            raise RegisterUnavailable(problem=_("the company's profile has no name or date of creation"))
        accounts = profile.get("accounts") or {}
        ard = accounts.get("accounting_reference_date") or {}
        try:
            day_month = (int(ard["day"]), int(ard["month"]))
        except (KeyError, TypeError, ValueError):
            day_month = None
        statement = profile.get("confirmation_statement") or {}
        next_accounts = accounts.get("next_accounts") or {}
        return Entry(
            number=str(profile.get("company_number") or number),
            name=str(profile["company_name"]),
            status=str(profile.get("company_status") or ""),
            company_type=_type(str(profile.get("type") or "")),
            jurisdiction=str(profile.get("jurisdiction") or jurisdiction_of(number)),
            incorporated_on=incorporated,
            registered_office=_address(profile.get("registered_office_address") or {}),
            sic_codes=[str(code) for code in profile.get("sic_codes") or []][:20],
            ard=day_month,
            next_due={
                "accounts": (
                    _day(next_accounts.get("period_end_on") or accounts.get("next_made_up_to")),
                    _day(next_accounts.get("due_on") or accounts.get("next_due")),
                ),
                "confirmation_statement": (
                    _day(statement.get("next_made_up_to")),
                    _day(statement.get("next_due")),
                ),
            },
            officers=[
                Officer(
                    name=str(item.get("name") or ""),
                    role=str(item.get("officer_role") or ""),
                    appointed_on=_day(item.get("appointed_on")),
                    resigned_on=_day(item.get("resigned_on")),
                )
                for item in officers.get("items") or []
                if item.get("name")
            ],
            filings=[
                Filed(
                    date=filed,
                    form=str(item.get("type") or ""),
                    category=str(item.get("category") or ""),
                    description=str(item.get("description") or "").replace("-", " "),
                )
                for item in history.get("items") or []
                if (filed := _day(item.get("date"))) is not None
            ],
        )


def provider() -> Provider:
    """The configured register, or RegisterNotConfigured."""
    key = settings.ATRIUM_ACCOUNTING_REGISTER_API_KEY
    if not key:
        raise RegisterNotConfigured()
    return CompaniesHouse(url=settings.ATRIUM_ACCOUNTING_REGISTER_URL, key=key)
