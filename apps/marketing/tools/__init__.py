"""The Marketing area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.marketing.tools import campaigns

__all__ = ["campaigns"]
