"""Deals Pipeline tools: deals (registered as they are built)."""
