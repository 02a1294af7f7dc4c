"""Web search on Settings → Integrations (apps.integrations.api): the provider picked, its address
or key, and a test that searches for "test" (webExtract needs no provider)."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.integrations.api import (
    Field,
    Integration,
    Outcome,
    Provider,
    http_check,
    not_configured,
    register,
    setting,
)
from apps.web import searching
from apps.web.permissions import WebPerm


def test_searxng() -> Outcome:
    url = setting("ATRIUM_WEB_SEARXNG_URL")
    if not url:
        return not_configured("ATRIUM_WEB_SEARXNG_URL")
    return http_check(
        "GET",
        f"{url.rstrip('/')}/search",
        params={"q": "test", "format": "json"},
        headers={"Accept": "application/json"},
        timeout=settings.ATRIUM_WEB_SEARCH_SECONDS,
    )


def test_brave() -> Outcome:
    key = setting("ATRIUM_WEB_BRAVE_KEY")
    if not key:
        return not_configured("ATRIUM_WEB_BRAVE_KEY")
    return http_check(
        "GET",
        f"{setting('ATRIUM_WEB_BRAVE_URL').rstrip('/')}/res/v1/web/search",
        params={"q": "test", "count": "1"},
        headers={"Accept": "application/json", "X-Subscription-Token": key},
        timeout=settings.ATRIUM_WEB_SEARCH_SECONDS,
    )


register(
    Integration(
        area="web",
        title=_("Web browser"),
        permission=WebPerm.VIEW,
        activity="web:calls",
        activity_label=_("Web searches and pages read"),
        configured=searching.configured,
        choice=Field("ATRIUM_WEB_SEARCH_PROVIDER", _("Search provider"), choices=("searxng", "brave")),
        providers=(
            Provider(
                key="searxng",
                name="SearXNG",
                fields=(Field("ATRIUM_WEB_SEARXNG_URL", _("SearXNG address"), url=True),),
                test=test_searxng,
            ),
            Provider(
                key="brave",
                name="Brave Search API",
                fields=(
                    Field("ATRIUM_WEB_BRAVE_KEY", _("Brave subscription token"), secret=True),
                    Field("ATRIUM_WEB_BRAVE_URL", _("Brave API address"), url=True),
                ),
                test=test_brave,
            ),
        ),
        order=10,
    )
)
