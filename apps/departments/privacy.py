"""Personal data in departments (docs/privacy.md): a person's memberships go with them; a
department they head is about them (exported with their data) and stays, without them as its
head; one they created stays, with that link cleared; linked contacts by address."""

from apps.core import privacy
from apps.departments.models import Department, DepartmentContact, Member

privacy.register(Member, user="user")
privacy.register(DepartmentContact, email="contact__email")
# The organisation's own unit: it stays, without the person at its head.
privacy.register(Department, user="head", erase={"head": None})
