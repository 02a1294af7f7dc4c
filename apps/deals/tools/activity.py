"""Deals Pipeline tools: activity (registered as they are built)."""
