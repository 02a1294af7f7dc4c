"""webSearch's providers, one small interface (`Provider.search`) and the setting that picks one
(ATRIUM_WEB_SEARCH_PROVIDER):

- `searxng`: a SearXNG instance's JSON API (self-hosted, no key; its settings.yml must list
  `json` under `search.formats`): GET {ATRIUM_WEB_SEARXNG_URL}/search?q=...&format=json
  &language=...&pageno=1 -> {"results": [{"url", "title", "content", "engine", "publishedDate"}]}
- `brave`: the Brave Search API: GET {ATRIUM_WEB_BRAVE_URL}/res/v1/web/search?q=...&count=...
  with X-Subscription-Token: {ATRIUM_WEB_BRAVE_KEY} -> {"web": {"results": [{"url", "title",
  "description", "page_age", "age"}]}}

Without the setting's provider configured, SearchNotConfigured names what an administrator sets.
A provider's failure is SearchFailed in the service's words (a provider's own may quote the query)."""

import logging
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from django.conf import settings

from apps.core import outbound
from apps.integrations.api import setting
from apps.web import errors

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Result:
    title: str
    url: str
    snippet: str
    published: str
    engine: str


class Provider(Protocol):
    name: str

    def search(self, query: str, *, count: int, language: str) -> list[Result]: ...


def _text(value: Any, limit: int) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def _get(provider: str, url: str, *, params: dict[str, str], headers: dict[str, str]) -> Any:
    outbound.reached("web search provider")
    try:
        answer = httpx.get(
            url,
            params=params,
            headers={"Accept": "application/json", **headers},
            timeout=settings.ATRIUM_WEB_SEARCH_SECONDS,
            trust_env=False,
        )
    except httpx.HTTPError as error:
        logger.warning("web search provider %s unreachable (%s)", provider, type(error).__name__)
        raise errors.SearchUnreachable(provider=provider, kind=type(error).__name__) from None
    if answer.status_code in (401, 403):
        raise errors.SearchKeyRefused(provider=provider, status=answer.status_code)
    if answer.status_code != 200:
        logger.warning("web search provider %s answered %s", provider, answer.status_code)
        raise errors.SearchHttpError(provider=provider, status=answer.status_code)
    try:
        return answer.json()
    except ValueError:
        raise errors.SearchNotJson(provider=provider) from None


def _rows(data: Any, *path: str) -> list[dict[str, Any]]:
    for key in path:
        data = data.get(key) if isinstance(data, dict) else None
    return [row for row in data if isinstance(row, dict)] if isinstance(data, list) else []


def _web(url: Any) -> str:
    return url[:2000] if isinstance(url, str) and url.startswith(("http://", "https://")) else ""


class Searxng:
    name = "searxng"

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")

    def search(self, query: str, *, count: int, language: str) -> list[Result]:
        params = {"q": query, "format": "json", "pageno": "1", "safesearch": "1"}
        if language:
            params["language"] = language
        data = _get(self.name, f"{self.base_url}/search", params=params, headers={})
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise errors.SearchNotJson(provider=self.name)
        return [
            Result(
                title=_text(row.get("title"), 300),
                url=_web(row.get("url")),
                snippet=_text(row.get("content"), 1000),
                published=_text(row.get("publishedDate"), 40),
                engine=_text(row.get("engine"), 40),
            )
            for row in _rows(data, "results")
            if _web(row.get("url"))
        ][:count]


class Brave:
    name = "brave"

    def __init__(self, base_url: str, key: str) -> None:
        self.base_url, self.key = base_url.rstrip("/"), key

    def search(self, query: str, *, count: int, language: str) -> list[Result]:
        params = {"q": query, "count": str(count), "safesearch": "moderate"}
        if language:
            params["search_lang"] = language
        data = _get(
            self.name,
            f"{self.base_url}/res/v1/web/search",
            params=params,
            headers={"X-Subscription-Token": self.key},
        )
        if not isinstance(data, dict):
            raise errors.SearchNotJson(provider=self.name)
        return [
            Result(
                title=_text(row.get("title"), 300),
                url=_web(row.get("url")),
                snippet=_text(row.get("description"), 1000),
                published=_text(row.get("page_age") or row.get("age"), 40),
                engine="brave",
            )
            for row in _rows(data, "web", "results")
            if _web(row.get("url"))
        ][:count]


def provider() -> Provider:
    """The provider the settings pick, or SearchNotConfigured."""
    chosen = setting("ATRIUM_WEB_SEARCH_PROVIDER")
    if chosen == "searxng":
        if not setting("ATRIUM_WEB_SEARXNG_URL"):
            raise errors.SearchNotConfigured(provider=chosen, setting="ATRIUM_WEB_SEARXNG_URL")
        return Searxng(setting("ATRIUM_WEB_SEARXNG_URL"))
    if chosen == "brave":
        if not setting("ATRIUM_WEB_BRAVE_KEY"):
            raise errors.SearchNotConfigured(provider=chosen, setting="ATRIUM_WEB_BRAVE_KEY")
        return Brave(setting("ATRIUM_WEB_BRAVE_URL"), setting("ATRIUM_WEB_BRAVE_KEY"))
    raise errors.SearchNotConfigured(
        provider=chosen, setting="ATRIUM_WEB_SEARCH_PROVIDER to be searxng or brave"
    )


def configured() -> str:
    """The configured provider's name, or "" (the settings page says which is set)."""
    try:
        return provider().name
    except errors.SearchNotConfigured:
        return ""
