"""The four built-in roles. Their permissions are computed from levels (Role.SYSTEM_LEVELS), so
areas added later extend them without another migration."""

from django.db import migrations

SYSTEM_ROLES = [
    ("owner", "Owner", "Everything, including handing out the owner role."),
    ("admin", "Admin", "Everything but ownership: people, roles, settings and all areas."),
    ("member", "Member", "Reads and writes in every installed area; no deleting, no administration."),
    ("viewer", "Viewer", "Reads only."),
]


def create_roles(apps, schema_editor):
    Role = apps.get_model("accounts", "Role")
    for key, name, description in SYSTEM_ROLES:
        Role.objects.update_or_create(
            key=key, defaults={"name": name, "description": description, "is_system": True}
        )


def remove_roles(apps, schema_editor):
    apps.get_model("accounts", "Role").objects.filter(key__in=[key for key, *_ in SYSTEM_ROLES]).delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]
    operations = [migrations.RunPython(create_roles, remove_roles)]
