import os

from django.db import migrations, models

from apps.tenancy.tests.typical_migration import latest_real

SLEEP = float(os.environ.get("ATRIUM_TEST_MIGRATION_SLEEP", "0"))


class Migration(migrations.Migration):
    dependencies = [("contacts", latest_real())]

    operations = [
        migrations.AddField("contact", "upgrade_level", models.IntegerField(db_default=0)),
        migrations.AddIndex(
            "contact", models.Index(fields=["upgrade_level"], name="contacts_upgrade_level_idx")
        ),
        *([migrations.RunSQL(f"SELECT pg_sleep({SLEEP})", migrations.RunSQL.noop)] if SLEEP else []),
    ]
