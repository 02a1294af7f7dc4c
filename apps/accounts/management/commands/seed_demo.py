"""The demo data of `make run` (development only; idempotent, so every run may call it): the
demo workspaces (through apps.tenancy) and their people."""

from importlib import import_module
from typing import Any, TypedDict

from django.conf import settings
from django.core.management.base import BaseCommand
from django_tenants.utils import schema_context

from apps.accounts.models import Role, User
from apps.core import areas as declared_areas
from apps.core import permissions
from apps.tenancy.models import Workspace
from apps.tenancy.services import workspace_create


class DemoWorkspace(TypedDict):
    schema_name: str
    name: str
    brand_name: str
    domains: list[str]
    people: str  # their e-mail domain


DEMO_WORKSPACES: list[DemoWorkspace] = [
    {
        "schema_name": "acme",
        "name": "Acme",
        "brand_name": "Acme Workspace",
        "domains": ["localhost", "127.0.0.1"],
        "people": "acme.example",
    },
    {
        "schema_name": "globex",
        "name": "Globex",
        "brand_name": "Globex Hub",
        "domains": ["127.0.0.2"],
        "people": "globex.example",
    },
]
ROLES = ["owner", "admin", "member", "viewer"]
OPERATOR_EMAIL = "operator@atrium.example"


class Command(BaseCommand):
    help = "Create the demo workspaces Acme and Globex with one person per default role."

    def handle(self, *args: Any, **options: Any) -> None:
        password = settings.ATRIUM_DEMO_PASSWORD
        for spec in DEMO_WORKSPACES:
            workspace = Workspace.objects.filter(schema_name=spec["schema_name"]).first()
            if workspace is None:
                workspace = workspace_create(
                    name=spec["name"],
                    schema_name=spec["schema_name"],
                    brand_name=spec["brand_name"],
                    domains=spec["domains"],
                    owner_email=f"owner@{spec['people']}",
                    owner_password=password,
                )
                self.stdout.write(f"created workspace {workspace.name}")
            # The demo shows every area, including areas added since it was first seeded.
            areas = permissions.optional_area_keys()
            if sorted(workspace.installed_areas) != areas:
                workspace.installed_areas = areas
                workspace.save(update_fields=["installed_areas"])
            with schema_context(workspace.schema_name):
                for role_key in ROLES:
                    email = f"{role_key}@{spec['people']}"
                    if not User.objects.filter(email=email).exists():
                        User.objects.create_user(
                            email=email, password=password, role=Role.objects.get(key=role_key)
                        )
                # Each area's demo data, where it has some (apps.<app>.demo.seed; idempotent).
                people = list(User.objects.filter(email__in=[f"{r}@{spec['people']}" for r in ROLES]))
                for area in areas_with_demo():
                    import_module(area).seed(people=people, domain=spec["people"])
        if not User.objects.filter(email=OPERATOR_EMAIL).exists():
            User.objects.create_superuser(email=OPERATOR_EMAIL, password=password)


def areas_with_demo() -> list[str]:
    """The `demo` modules of the declared areas, in the areas' order."""
    found = (area.submodule("demo") for area in declared_areas.all_areas())
    return [module for module in found if module]
