"""Reads of the HR area, one module per topic: rows as the actor may see them."""
