"""Held-out search requests for Platform (see test_search_quality.py): written from the area's
docs before its search hints, never used to change hints, vocabulary or weights."""

HELD_OUT = [
    ("countries of the Caribbean", "getCountriesByRegion"),
    ("which nations are in Northern Europe", "getCountriesByRegion"),
    ("ISO codes of all African countries", "getCountriesByRegion"),
    ("IBAN format for Italy", "getCountryBankConfig"),
    ("how many digits is a Belgian bank account", "getCountryBankConfig"),
    ("what's the BIC format in France", "getCountryBankConfig"),
    ("verify IBAN GB82 WEST 1234 5698 7654 32", "validateBankDetails"),
    ("does this BIC exist", "validateBankDetails"),
    ("check the bank details the freelancer sent", "validateBankDetails"),
    ("validate VAT number IE6388047V", "validateTaxId"),
    ("is this Spanish NIF correct", "validateTaxId"),
    ("check a tax identification number from Italy", "validateTaxId"),
    ("holidays in France this year", "getPublicHolidays"),
    ("when is Thanksgiving in the US in 2026", "getPublicHolidays"),
    ("state holidays for New South Wales", "getPublicHolidays"),
]
