"""The HR area of the catalogue (SPEC 4.7), one module per group of tools."""
