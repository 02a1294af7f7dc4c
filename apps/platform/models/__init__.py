"""The Platform area's models, one module per group of entities."""

from apps.platform.models.apis import StoredApi, StoredApiCall
from apps.platform.models.fields import CustomField, CustomFieldValue
from apps.platform.models.integrations import IntegrationConnection, IntegrationGrant
from apps.platform.models.portal import PortalUser
from apps.platform.models.support import SupportTicket
from apps.platform.models.transfer import DataExport, DataImport

__all__ = [
    "CustomField",
    "CustomFieldValue",
    "DataExport",
    "DataImport",
    "IntegrationConnection",
    "IntegrationGrant",
    "PortalUser",
    "StoredApi",
    "StoredApiCall",
    "SupportTicket",
]
