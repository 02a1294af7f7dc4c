"""Web search on Settings → Integrations (apps.integrations.api): the provider picked, its address
or key, and a test that searches for "test" (webExtract needs no provider)."""

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.integrations import api as integrations
from apps.web import searching
from apps.web.permissions import WebPerm


def test_searxng() -> integrations.Outcome:
    if absent := integrations.unset("ATRIUM_WEB_SEARXNG_URL"):
        return absent
    return integrations.http_check(
        "GET",
        f"{integrations.setting('ATRIUM_WEB_SEARXNG_URL').rstrip('/')}/search",
        params={"q": "test", "format": "json"},
        headers={"Accept": "application/json"},
        timeout=settings.ATRIUM_WEB_SEARCH_SECONDS,
    )


def test_brave() -> integrations.Outcome:
    if absent := integrations.unset("ATRIUM_WEB_BRAVE_KEY"):
        return absent
    return integrations.http_check(
        "GET",
        f"{integrations.setting('ATRIUM_WEB_BRAVE_URL').rstrip('/')}/res/v1/web/search",
        params={"q": "test", "count": "1"},
        headers={
            "Accept": "application/json",
            "X-Subscription-Token": integrations.setting("ATRIUM_WEB_BRAVE_KEY"),
        },
        timeout=settings.ATRIUM_WEB_SEARCH_SECONDS,
    )


integrations.register(
    integrations.Integration(
        area="web",
        title=_("Web browser"),
        permission=WebPerm.VIEW,
        activity="web:calls",
        activity_label=_("Web searches and pages read"),
        configured=searching.configured,
        choice=integrations.Field(
            "ATRIUM_WEB_SEARCH_PROVIDER", _("Search provider"), choices=("searxng", "brave")
        ),
        providers=(
            integrations.Provider(
                key="searxng",
                name="SearXNG",
                fields=(integrations.Field("ATRIUM_WEB_SEARXNG_URL", _("SearXNG address"), url=True),),
                test=test_searxng,
            ),
            integrations.Provider(
                key="brave",
                name="Brave Search API",
                fields=(
                    integrations.Field("ATRIUM_WEB_BRAVE_KEY", _("Brave subscription token"), secret=True),
                    integrations.Field("ATRIUM_WEB_BRAVE_URL", _("Brave API address"), url=True),
                ),
                test=test_brave,
            ),
        ),
        order=10,
    )
)
