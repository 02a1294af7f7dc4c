"""A normal call of each Agent Web Browser tool, for the catalogue's contract test: against a page
and a SearXNG instance served on loopback."""

from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.core.testing import for_the_process
from apps.web.tests.servers import Engine, Site, searxng, site

# The page's server, started once for the process (its address is in the sample's arguments).
_served: list[Site] = []


def _site() -> Site:
    if not _served:
        _served.append(for_the_process(site()))
    return _served[0]


@sample("webExtract")
def web_extract(actor: Any) -> Sample:
    return Sample({"url": f"{_site().url}/article", "fresh": True})


@sample("webSearch")
def web_search(actor: Any) -> Sample:
    results = [
        {"url": "https://kestrel.example/harbour", "title": "Harbour", "content": "Quays", "engine": "x"}
    ]
    return Sample({"query": "kestrel harbour"}, around=lambda: searxng(Engine(results)))
