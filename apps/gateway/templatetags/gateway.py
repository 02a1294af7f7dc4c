from typing import Any

from django import template

from apps.gateway import selectors

register = template.Library()


@register.simple_tag
def key_deliveries(key: Any, limit: int = 20) -> list[Any]:
    """The latest webhook deliveries of an API key, with their attempts (the key's page)."""
    return selectors.deliveries_for_key(key=key, limit=limit)


@register.filter
def http_status_class(code: int | None) -> str:
    """The badge class of an HTTP status a receiver answered: green for 2xx, red for 4xx and
    5xx, neutral otherwise (no answer yet, a redirect)."""
    if code is None:
        return "neutral"
    if 200 <= code < 300:
        return "success"
    if 400 <= code < 600:
        return "failure"
    return "neutral"
