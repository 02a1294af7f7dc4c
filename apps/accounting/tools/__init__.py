"""The Accounting area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.accounting.tools import bank, charges, matching, overview, sales, sending

__all__ = ["charges", "overview", "sales", "sending"]
__all__ += ["bank", "matching"]
