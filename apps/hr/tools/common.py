"""What the HR tools share: id arguments and links."""

from typing import Annotated, Any

from django.urls import reverse

from apps.catalogue.shapes import id_field
from apps.tenancy import links

EmployeeId = Annotated[int, id_field("searchEmployees")]


def url(name: str, **kwargs: Any) -> str:
    return links.site_origin() + reverse(name, kwargs=kwargs or None)
