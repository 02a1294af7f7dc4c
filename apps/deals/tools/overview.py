"""Deals Pipeline tools: overview (registered as they are built)."""
