"""Personal data in departments (docs/privacy.md): a person's memberships go with them; a
department they head or created stays, with that link cleared; linked contacts by address."""

from apps.core import privacy
from apps.departments.models import Department, DepartmentContact, Member

privacy.register(Member, user="user")
privacy.register(DepartmentContact, email="contact__email")
privacy.not_personal(Department, reason="the organisation's own units: names and descriptions")
