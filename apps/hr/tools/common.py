"""What the HR tools share: id arguments."""

from typing import Annotated

from apps.catalogue.shapes import id_field

EmployeeId = Annotated[int, id_field("searchEmployees")]
