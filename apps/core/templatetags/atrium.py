"""The project's own template filters, available in every template (TEMPLATES `builtins`;
`{% load atrium %}` works too).

`when`: every time a page shows, in one format and the reader's time zone (apps/core/times.py):
`{{ value|when }}`, or in a zone of its own, `{{ event.start|when:event.time_zone }}`.
"""

from typing import Any

from django import template
from django.utils.safestring import SafeString

from apps.core import times

register = template.Library()


@register.filter(is_safe=True)
def when(value: Any, zone: Any = None) -> SafeString | str:
    return times.when_html(value, zone if isinstance(zone, str) and zone else None)
