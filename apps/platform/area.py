"""The Platform area, as the rest of the service knows it (apps.core.areas): in every workspace."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas

area = areas.declare(
    title=_("Platform"),
    group=areas.Group.ADMINISTRATION,
    description=_("Reference data for every area: countries and regions, bank formats, tax ids, holidays"),
    core=True,
    urls=None,
    words="reference country countries region bank iban bic vat tax holiday",
    hints={
        "getCountriesByRegion": (
            "which countries are in a continent or world region, list of nations, EU member states, Latin "
            "America, Southeast Asia, sales territory"
        ),
        "getCountryBankConfig": (
            "IBAN length and format of a country, what a bank account number or sort code looks like, how "
            "many digits, BIC format, SEPA, paying a supplier abroad"
        ),
        "validateBankDetails": (
            "check verify an IBAN or BIC SWIFT code, which bank an IBAN belongs to, bank details someone "
            "sent, turn a sort code and account number into an IBAN"
        ),
        "validateTaxId": (
            "check verify a VAT ID, VAT registration, tax number, company number, SIREN, NIF, BSN, EIN, "
            "national id of a customer or supplier, is it real genuine"
        ),
        "getPublicHolidays": (
            "bank holidays, national holidays, days off, office closed, public holiday calendar of a country "
            "or state"
        ),
    },
    profiles={
        "reference": (
            "getCountriesByRegion",
            "getCountryBankConfig",
            "validateBankDetails",
            "validateTaxId",
            "getPublicHolidays",
        ),
        "finance": ("validateBankDetails", "getCountryBankConfig"),
        "billing": ("validateBankDetails", "validateTaxId"),
    },
)
