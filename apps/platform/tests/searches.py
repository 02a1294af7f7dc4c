"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("which countries are in Western Africa", "getCountriesByRegion"),
    ("list the EU member states with their country codes", "getCountriesByRegion"),
    ("what countries count as Latin America for our sales territory", "getCountriesByRegion"),
    ("give me every country in Southeast Asia", "getCountriesByRegion"),
    ("how long is an IBAN in Norway", "getCountryBankConfig"),
    ("what does a UK bank account number look like, sort code and account", "getCountryBankConfig"),
    ("does Switzerland use IBAN and is it in SEPA", "getCountryBankConfig"),
    ("bank account format for paying a supplier in Poland", "getCountryBankConfig"),
    ("is this IBAN valid: DE89 3704 0044 0532 0130 00", "validateBankDetails"),
    ("check the supplier's BIC COBADEFFXXX and tell me which bank it is", "validateBankDetails"),
    ("which bank does this IBAN belong to", "validateBankDetails"),
    ("turn sort code 40-47-84 and account 70872490 into an IBAN", "validateBankDetails"),
    ("is DE136695976 a valid German VAT number", "validateTaxId"),
    ("check the customer's VAT ID before we invoice them", "validateTaxId"),
    ("validate this Dutch BSN for the new hire", "validateTaxId"),
    ("is the company number on this French invoice a real SIREN", "validateTaxId"),
    ("what are the bank holidays in England next year", "getPublicHolidays"),
    ("public holidays in Bavaria in 2027", "getPublicHolidays"),
    ("is the 3rd of October a holiday in Germany", "getPublicHolidays"),
    ("which days is the office in Spain closed for national holidays", "getPublicHolidays"),
]
