"""The enrichment provider of deal finders: a JSON REST interface in the style of People Data
Labs' and Apollo's person search, reached with httpx when `ATRIUM_DEALS_ENRICHMENT_URL` is set.

    POST {url}/v1/people/search          X-Api-Key: {ATRIUM_DEALS_ENRICHMENT_KEY}
    {"keywords": [...], "industries": [...], "countries": ["DE"], "titles": [...], "size": 25}
    200 {"people": [{"id", "name", "email", "title", "company", "domain", "industry", "country"}],
         "credits_used": 3}

401/403: the key is refused; 402: no credits left; 429: too many requests; anything else, or no
answer within the timeout: the provider is down. Each is a clear error (ProviderFailed) naming
the problem, never the provider's own words (they may quote the query)."""

import logging
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings
from django.utils.translation import gettext as _

from apps.core import outbound
from apps.deals.errors import ProviderAnswered, ProviderFailed

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Person:
    ref: str
    name: str
    email: str
    title: str
    company: str
    domain: str
    industry: str
    country: str


def configured() -> bool:
    return bool(settings.ATRIUM_DEALS_ENRICHMENT_URL)


def _text(value: Any, limit: int) -> str:
    return value.strip()[:limit] if isinstance(value, str) else ""


def search(criteria: dict[str, list[str]], *, size: int) -> tuple[list[Person], int]:
    """The people the provider finds for `criteria`, and the credits it says the search cost."""
    if not configured():
        raise ProviderFailed(problem=_("no enrichment provider is configured (ATRIUM_DEALS_ENRICHMENT_URL)"))
    url = settings.ATRIUM_DEALS_ENRICHMENT_URL.rstrip("/") + "/v1/people/search"
    body = {key: criteria.get(key, []) for key in ("keywords", "industries", "countries", "titles")}
    outbound.reached("enrichment provider")
    try:
        answer = httpx.post(
            url,
            json={**body, "size": size},
            headers={"X-Api-Key": settings.ATRIUM_DEALS_ENRICHMENT_KEY, "Accept": "application/json"},
            timeout=settings.ATRIUM_DEALS_ENRICHMENT_TIMEOUT_SECONDS,
        )
    except httpx.HTTPError as error:
        logger.warning("enrichment provider unreachable (%s)", type(error).__name__)
        raise ProviderFailed(problem=_("the enrichment provider does not answer")) from error
    problems = {
        401: _("the enrichment provider refused the API key"),
        403: _("the enrichment provider refused the API key"),
        402: _("the enrichment provider account has no credits left"),
        429: _("the enrichment provider asks to slow down; try again later"),
    }
    if answer.status_code != 200:
        logger.warning("enrichment provider answered %s", answer.status_code)
        if answer.status_code in problems:
            raise ProviderFailed(problem=problems[answer.status_code])
        raise ProviderAnswered(status=answer.status_code)
    try:
        data = answer.json()
        rows = data["people"]
        assert isinstance(rows, list)
    except (ValueError, KeyError, TypeError, AssertionError) as error:
        raise ProviderFailed(
            problem=_("the enrichment provider's answer is not the expected JSON")
        ) from error
    credits = data.get("credits_used", 0)
    people = [
        Person(
            ref=_text(str(row.get("id", "")), 100),
            name=_text(row.get("name"), 200),
            email=_text(row.get("email"), 254).lower(),
            title=_text(row.get("title"), 150),
            company=_text(row.get("company"), 200),
            domain=_text(row.get("domain"), 253).lower(),
            industry=_text(row.get("industry"), 100),
            country=_text(row.get("country"), 2).upper(),
        )
        for row in rows[:size]
        if isinstance(row, dict)
    ]
    return people, credits if isinstance(credits, int) and credits >= 0 else 0
