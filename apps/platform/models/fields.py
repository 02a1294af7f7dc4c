"""Custom fields: the fields an administrator adds to a kind of record (contacts, deals, tasks),
and their values, kept in a side table keyed by (field, record id) for every kind alike."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class CustomField(models.Model):
    """One field added to a kind of record. Archived (hidden, its values kept) rather than deleted
    while records hold values of it; deleted with its values only when that is confirmed."""

    class Type(models.TextChoices):
        TEXT = "text", _("text")
        NUMBER = "number", _("number")
        DATE = "date", _("date")
        CHOICE = "choice", _("choice")
        BOOLEAN = "boolean", _("boolean")

    kind = models.CharField(max_length=30)
    key = models.SlugField(max_length=50)
    label = models.CharField(max_length=100)
    type = models.CharField(max_length=20, choices=Type.choices)
    # The values a `choice` field takes, in their order; empty for the other types.
    choices = models.JSONField(default=list, blank=True)
    required = models.BooleanField(default=False)
    order = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["kind", "order", "key"]
        constraints = [models.UniqueConstraint(fields=["kind", "key"], name="platform_custom_field_key_once")]

    def __str__(self) -> str:
        return f"{self.kind}.{self.key}"


class CustomFieldValue(models.Model):
    """A record's value of a custom field: the record is named by its id in the field's kind (the
    field says which kind), so one table serves every kind without a column in each area."""

    field = models.ForeignKey(CustomField, on_delete=models.CASCADE, related_name="values")
    record_id = models.BigIntegerField()
    # A JSON scalar: text, a number, an ISO date, one of the field's choices, true or false.
    value = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["field", "record_id"], name="platform_custom_value_once")
        ]
        indexes = [models.Index(fields=["record_id"], name="platform_custom_value_record")]

    def __str__(self) -> str:
        return f"{self.field_id} of {self.record_id}"
