"""searchTools' first twenty put in order by a model (optional; off by default).

The offline search (apps.catalogue.search) answers on its own, in milliseconds, and every figure
of its evaluation is made without this. Where the service has a model backend and
ATRIUM_CATALOGUE_SEARCH_RERANK is on, a door that can reach a model and meter it provides a
`Reranker` (the message gateway does: apps.gateway.agent.rerank): it is given the request and the
first RERANK_TOP tools, and answers their names, best first, or None when it cannot (no model, no
API key to meter the call to, a budget spent, a model that failed). A name it does not know is
ignored, and a tool it leaves out keeps its place after the ones it named; whatever it answers,
the same tools come back, and nothing else.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

from django.conf import settings

from apps.catalogue.registry import ToolSpec
from apps.core.credentials import Principal

logger = logging.getLogger(__name__)

RERANK_TOP = 20


class Reranker(Protocol):
    def __call__(
        self, principal: Principal, query: str, tools: Sequence[ToolSpec]
    ) -> Sequence[str] | None: ...


_provider: Reranker | None = None


def provide(reranker: Reranker | None) -> None:
    """Installs the reranker (None: none), as the door that has a model starts."""
    global _provider
    _provider = reranker


def reordered(principal: Principal, query: str, ranked: Sequence[ToolSpec]) -> list[ToolSpec]:
    """`ranked` with its first RERANK_TOP in the reranker's order, when one is on and answers."""
    if not settings.ATRIUM_CATALOGUE_SEARCH_RERANK or _provider is None or len(ranked) < 2:
        return list(ranked)
    top = list(ranked[:RERANK_TOP])
    try:
        order = _provider(principal, query, top)
    except Exception:
        # The offline order is a good answer: a failing model never fails a search.
        logger.exception("searchTools: the re-ranking failed; the offline order stands")
        return list(ranked)
    if not order:
        return list(ranked)
    by_name = {spec.name: spec for spec in top}
    named = [by_name[name] for name in dict.fromkeys(order) if name in by_name]
    rest = [spec for spec in top if spec not in named]
    return [*named, *rest, *ranked[RERANK_TOP:]]
