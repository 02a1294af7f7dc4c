"""VAT numbers and IBANs are checked by maintained libraries, and a failure names the value."""

import pytest

from apps.accounting.lib import identifiers
from apps.core.errors import ValidationFailed


def test_valid_vat_numbers_come_back_compact():
    assert identifiers.vat_number("GB 980 7806 84") == "GB980780684"
    assert identifiers.vat_number("de 136,695,976".replace(",", "")) == "DE136695976"
    assert identifiers.vat_number("NL004495445B01") == "NL004495445B01"


@pytest.mark.parametrize("value", ["GB980780685", "DE136695977", "XX123", ""])
def test_a_vat_number_that_fails_its_check_is_refused(value):
    with pytest.raises(ValidationFailed, match=r"vatNumber: .*not a valid VAT number"):
        identifiers.vat_number(value)


def test_ibans_are_checked_down_to_their_check_digits():
    assert identifiers.iban("GB33 BUKB 2020 1555 5555 55") == "GB33BUKB20201555555555"
    with pytest.raises(ValidationFailed, match=r"iban: GB34BUKB20201555555555 is not a valid IBAN"):
        identifiers.iban("GB34BUKB20201555555555")
