"""Contacts speak the one visibility vocabulary of every area: `everyone` is `workspace` now
(the same meaning: everyone who may see contacts). Backwards, `workspace` is `everyone` again."""

from django.db import migrations


def everyone_to_workspace(apps, schema_editor):  # type: ignore[no-untyped-def]
    Contact = apps.get_model("contacts", "Contact")
    Contact.objects.filter(visibility="everyone").update(visibility="workspace")


def workspace_to_everyone(apps, schema_editor):  # type: ignore[no-untyped-def]
    Contact = apps.get_model("contacts", "Contact")
    Contact.objects.filter(visibility="workspace").update(visibility="everyone")


class Migration(migrations.Migration):
    dependencies = [
        ("contacts", "0002_kit_records"),
    ]

    operations = [
        migrations.RunPython(everyone_to_workspace, workspace_to_everyone),
    ]
