"""The built-in role of the client portal's external people: it grants no permission
(Role.granted_permissions), and is handed out only by inviting someone to the portal."""

from django.db import migrations


def create_role(apps, schema_editor):
    Role = apps.get_model("accounts", "Role")
    Role.objects.update_or_create(
        key="portal",
        defaults={
            "name": "Client portal",
            "description": "External people: they see on the portal only what is shared with them.",
            "is_system": True,
        },
    )


def remove_role(apps, schema_editor):
    apps.get_model("accounts", "Role").objects.filter(key="portal", users__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_user_time_zone")]
    operations = [migrations.RunPython(create_role, remove_role)]
