"""The Marketing area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.marketing.tools import campaigns, content, social

__all__ = ["campaigns", "content", "social"]
