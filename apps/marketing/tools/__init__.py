"""The Marketing area of the catalogue (SPEC 4.7), one module per group of tools."""

from apps.marketing.tools import analytics, campaigns, content, designs, landing, plans, sequences, social

__all__ = ["analytics", "campaigns", "content", "designs", "landing", "plans", "sequences", "social"]
