"""The Agent Web Browser area, as the rest of the service knows it (apps.core.areas): web searches
through a search provider and pages read by the service itself, for the workspace's agents."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.web.permissions import WebPerm

area = areas.declare(
    title=_("Web browser"),
    catalogue_title="Agent Web Browser",
    group=areas.Group.AUTOMATION,
    description=_("Web searches and web pages read by the service for agents, with their sources"),
    words="web internet online website webpage page url link site browse",
    hints={
        "webSearch": "search the web internet online, google it, websites pages news articles results",
        "webExtract": "read open fetch a web page url link website article, its text content, scrape",
    },
    profiles={"reference": ("webSearch", "webExtract"), "online": ("webSearch", "webExtract")},
    nav=[NavItem("web", _("Web browser"), "web:calls", WebPerm.VIEW, order=60)],
    not_kinds={
        "web.WebCall": "a log line of a web search or page read (its settings page), not named or followed",
    },
    periodic={
        "web-forget-expired": areas.Periodic("apps.web.tasks.forget_expired", crontab(minute=17)),
    },
    settings={
        # Which provider webSearch asks: searxng (ATRIUM_WEB_SEARXNG_URL) or brave (ATRIUM_WEB_BRAVE_KEY).
        "ATRIUM_WEB_SEARCH_PROVIDER": env.str("ATRIUM_WEB_SEARCH_PROVIDER", "searxng"),
        # A SearXNG instance's address, its JSON format enabled (settings.yml: search.formats).
        "ATRIUM_WEB_SEARXNG_URL": env.str("ATRIUM_WEB_SEARXNG_URL", ""),
        # The Brave Search API's subscription token, and its address.
        "ATRIUM_WEB_BRAVE_KEY": env.str("ATRIUM_WEB_BRAVE_KEY", ""),
        "ATRIUM_WEB_BRAVE_URL": env.str("ATRIUM_WEB_BRAVE_URL", "https://api.search.brave.com"),
        "ATRIUM_WEB_SEARCH_SECONDS": env.int("ATRIUM_WEB_SEARCH_SECONDS", 10, min=1),
        # A page read: at most these seconds, redirects and robots.txt included, and these bytes.
        "ATRIUM_WEB_FETCH_SECONDS": env.int("ATRIUM_WEB_FETCH_SECONDS", 20, min=1),
        "ATRIUM_WEB_MAX_BYTES": env.int("ATRIUM_WEB_MAX_BYTES", 10 * 1024 * 1024, min=1024),
        # Requests to one host (robots.txt included) a minute, from one workspace.
        "ATRIUM_WEB_PER_DOMAIN_PER_MINUTE": env.int("ATRIUM_WEB_PER_DOMAIN_PER_MINUTE", 20, min=1),
        # How long a page read is answered from the cache.
        "ATRIUM_WEB_CACHE_SECONDS": env.int("ATRIUM_WEB_CACHE_SECONDS", 3600, min=0),
    },
)
