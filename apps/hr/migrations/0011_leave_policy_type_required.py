import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("hr", "0010_leave_types_annual")]

    operations = [
        migrations.AlterField(
            model_name="leavepolicy",
            name="leave_type",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="policies", to="hr.leavetype"
            ),
        ),
    ]
