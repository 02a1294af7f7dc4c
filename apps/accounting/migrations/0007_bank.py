# Merges the bank lines (0006_bank) and the purchase bills (0006_purchase_bills), and lets a bank
# match tie bill lines too.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounting", "0006_bank"),
        ("accounting", "0006_purchase_bills"),
    ]

    operations = [
        migrations.AddField(
            model_name="matchline",
            name="bill_line",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounting.purchasebillline",
            ),
        ),
        migrations.AddField(
            model_name="matchline",
            name="entry",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="accounting.journalentry",
            ),
        ),
        migrations.AddConstraint(
            model_name="matchline",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("sales_line__isnull", True), ("bill_line__isnull", True), _connector="XOR"
                ),
                name="accounting_matchline_one_line",
            ),
        ),
    ]
