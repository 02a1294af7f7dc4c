"""The Platform area's models, one module per group of entities."""

from apps.platform.models.portal import PortalUser
from apps.platform.models.support import SupportTicket
from apps.platform.models.transfer import DataExport, DataImport

__all__ = ["DataExport", "DataImport", "PortalUser", "SupportTicket"]
