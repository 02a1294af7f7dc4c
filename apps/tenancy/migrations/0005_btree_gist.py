from django.contrib.postgres.operations import BtreeGistExtension
from django.db import migrations


class Migration(migrations.Migration):
    """btree_gist, for the exclusion constraints of workspace areas (Events: a room, a speaker, at
    one time). Made here, in the public schema that every workspace's search path ends with:
    extensions are per database, and a workspace schema is a copy of the template, which copies
    tables, not extensions. A migration of an area would make it in the first workspace schema it
    ran in, out of the others' sight."""

    dependencies = [
        ("tenancy", "0004_spare_schemas"),
    ]

    operations = [BtreeGistExtension()]
