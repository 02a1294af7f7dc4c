"""The Accounting area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.accounting.tools import overview, sales

__all__ = ["overview", "sales"]
