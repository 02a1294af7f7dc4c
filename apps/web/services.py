"""The Agent Web Browser's work: a page read (through the cache), a web search; each logged as the
caller's WebCall, the page the agents' record in Settings shows."""

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.core.actors import require
from apps.core.clean import storable, storable_json
from apps.core.clean import text as clean_text
from apps.web import fetching, reading, searching
from apps.web.models import CachedPage, WebCall
from apps.web.permissions import WebPerm

# What a cached page keeps of its text at most (an answer gives at most what it is asked).
MAX_KEPT_CHARS = 400_000


@dataclass(frozen=True)
class Extracted:
    url: str
    final_url: str
    content_type: str
    title: str
    text: str
    published: str
    links: list[dict[str, str]]
    size: int
    content_hash: str
    fetched_at: datetime
    cached: bool


def _key(url: str) -> str:
    return hashlib.sha256(url.strip().encode()).hexdigest()


def _of(page: CachedPage, *, cached: bool) -> Extracted:
    return Extracted(
        url=page.url,
        final_url=page.final_url,
        content_type=page.content_type,
        title=page.title,
        text=page.text,
        published=page.published,
        links=list(page.links),
        size=page.size,
        content_hash=page.content_hash,
        fetched_at=page.fetched_at,
        cached=cached,
    )


def _log(actor: Any, **fields: Any) -> None:
    WebCall.objects.create(created_by=actor, **fields)


def extract(*, actor: Any, url: str, fresh: bool = False) -> Extracted:
    """The page at `url`: from the cache while it is fresh (unless `fresh`), else read now."""
    require(actor, WebPerm.USE)
    url = url.strip()
    key = _key(url)
    now = timezone.now()
    kept = CachedPage.objects.filter(key=key, expires_at__gt=now).first()
    if kept is not None and not fresh:
        _log(
            actor,
            kind=WebCall.Kind.EXTRACT,
            url=url,
            final_url=kept.final_url,
            title=kept.title,
            size=kept.size,
            cached=True,
        )
        return _of(kept, cached=True)
    fetched = fetching.fetch(url)
    page = reading.read(fetched)
    values = {
        "url": url[:2000],
        "final_url": fetched.url[:2000],
        "content_type": fetched.content_type,
        # A page may hold what PostgreSQL keeps in no text (NUL, a lone surrogate).
        "title": storable(page.title)[:300],
        "text": storable(page.text)[:MAX_KEPT_CHARS],
        "links": storable_json(page.links),
        "published": storable(page.published)[:40],
        "size": len(fetched.body),
        "content_hash": hashlib.sha256(fetched.body).hexdigest(),
        "fetched_at": now,
        "expires_at": now + timedelta(seconds=settings.ATRIUM_WEB_CACHE_SECONDS),
    }
    with transaction.atomic():
        stored, _made = CachedPage.objects.update_or_create(key=key, defaults=values)
        _log(
            actor,
            kind=WebCall.Kind.EXTRACT,
            url=url[:2000],
            final_url=stored.final_url,
            title=stored.title,
            size=stored.size,
        )
    return _of(stored, cached=False)


def search(*, actor: Any, query: str, count: int, language: str = "") -> tuple[str, list[searching.Result]]:
    """The configured provider's name and its results for `query`."""
    require(actor, WebPerm.USE)
    query = clean_text(query, field="query", limit=400, required=True)
    provider = searching.provider()
    results = provider.search(query, count=count, language=language)
    _log(actor, kind=WebCall.Kind.SEARCH, query=query[:400], provider=provider.name, results=len(results))
    return provider.name, results


def forget_expired() -> int:
    """Drops the cached pages past their time (the periodic task)."""
    deleted, _kinds = CachedPage.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted
