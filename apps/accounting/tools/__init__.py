"""The Accounting area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.accounting.tools import bills, charges, overview, sales, sending

__all__ = ["bills", "charges", "overview", "sales", "sending"]
