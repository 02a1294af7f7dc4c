from django import template

from apps.files.blobs import human_size

register = template.Library()


@register.filter
def size(value: int | str | None) -> str:
    return "" if value is None or value == "" else human_size(int(value))
