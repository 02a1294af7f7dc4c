"""The Platform area: SPEC.md 4.7's cross-cutting tools that belong to no other area (reference
data: countries by region, banking formats, tax ids, public holidays), in every workspace."""
