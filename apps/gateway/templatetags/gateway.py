from typing import Any

from django import template

from apps.gateway import selectors

register = template.Library()


@register.simple_tag
def key_deliveries(key: Any, limit: int = 20) -> list[Any]:
    """The latest webhook deliveries of an API key, with their attempts (the key's page)."""
    return selectors.deliveries_for_key(key=key, limit=limit)
