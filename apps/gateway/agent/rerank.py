"""The gateway's model puts searchTools' first twenty in order (apps.catalogue.rerank), when
ATRIUM_CATALOGUE_SEARCH_RERANK is on and a model backend is configured.

One short call: the request and each tool's name and first sentence go in, the names come back
best first. It is metered like the agent's own calls: the most it can cost is reserved against
the caller's API key before, and the real cost settled after, apart from the tool's transaction
(apps.apikeys.apart). A call made without an API key (an
OAuth connection has none to meter to), a budget that cannot pay, or a model that fails gives no
order, and the offline one stands.
"""

import logging
import re
from collections.abc import Sequence

from apps.apikeys import apart
from apps.apikeys.errors import BudgetExceeded, KeyRevoked
from apps.catalogue.checks import description_body, first_sentence
from apps.catalogue.registry import ToolSpec
from apps.core.credentials import Principal
from apps.gateway.agent.backends import ModelError, PriceMissing, configured_backend

logger = logging.getLogger(__name__)

# Names of at most twenty tools, one a line.
MAX_TOKENS = 400
# A search waits this long for the order at most: past it, the offline one is as good.
SECONDS = 10.0
SYSTEM = (
    "You put tools in order for a request. Answer only with the tool names, best first, one per "
    "line, using the names exactly as given; leave out the tools that do not help."
)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


def rerank(principal: Principal, query: str, tools: Sequence[ToolSpec]) -> list[str] | None:
    backend = configured_backend()
    if backend is None or principal.api_key_id is None:
        return None
    listing = "\n".join(f"{spec.name}: {first_sentence(description_body(spec))}" for spec in tools)
    body = backend.request(
        system=SYSTEM,
        messages=[{"role": "user", "content": f"Request: {query}\n\nTools:\n{listing}"}],
        tools=[],
        max_tokens=MAX_TOKENS,
        final=True,
    )
    try:
        reservation = apart.reserve(
            key=principal.api_key_id,
            micro_usd=backend.max_cost(len(body), MAX_TOKENS),
            purpose="searchTools order",
        )
    except (BudgetExceeded, KeyRevoked, PriceMissing):
        return None
    try:
        reply = backend.complete(body, within=SECONDS)
    except ModelError as error:
        apart.release(reservation=reservation)
        logger.warning("searchTools: the model gave no order (%s)", error)
        return None
    except BaseException:
        apart.release(reservation=reservation)
        raise
    apart.settle(
        reservation=reservation,
        micro_usd=backend.cost(reply.usage),
        input_tokens=reply.usage.read_tokens,
        output_tokens=reply.usage.output_tokens,
    )
    known = {spec.name for spec in tools}
    return [name for name in _NAME.findall(reply.text) if name in known]
