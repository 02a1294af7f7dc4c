"""Writes of the HR area, one module per group of entities."""
