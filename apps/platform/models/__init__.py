"""The Platform area's models, one module per group of entities."""

from apps.platform.models.fields import CustomField, CustomFieldValue
from apps.platform.models.transfer import DataExport, DataImport

__all__ = ["CustomField", "CustomFieldValue", "DataExport", "DataImport"]
