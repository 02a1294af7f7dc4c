"""Deals Pipeline tools: pipelines (registered as they are built)."""
