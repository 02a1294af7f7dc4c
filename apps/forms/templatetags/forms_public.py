from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: Any, key: str) -> Any:
    """A dictionary's value by a key held in a variable (a field's answers and problems)."""
    return mapping.get(key, "") if isinstance(mapping, dict) else ""
