"""A normal call of every Deals Pipeline tool, for the catalogue's contract test
(apps/catalogue/tests/test_contract.py)."""

from apps.deals.tests import samples_outreach  # noqa: F401  (deal finders, campaigns, e-mail)
