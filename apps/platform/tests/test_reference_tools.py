"""The Platform area's reference-data tools through call_tool: per tool a normal call, bad input
and a refusal, and what a person would do with them. Offline: the data is the packages'."""

import pytest

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, ok, person_without, refused

TOOLS = {
    "getCountriesByRegion": {"region": "Europe"},
    "getCountryBankConfig": {"country": "DE"},
    "validateBankDetails": {"iban": "DE89370400440532013000"},
    "validateTaxId": {"number": "DE136695976", "country": "DE"},
    "getPublicHolidays": {"country": "DE", "year": 2026},
}


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    person = person_without("platform.view", email=f"no-{name.lower()}@acme.example")

    with pytest.raises(ToolNotFound):
        call(person, name, TOOLS[name])


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_every_built_in_role_may_use_it(people, name):
    ok(people["viewer"], name, TOOLS[name])


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        (
            "getCountriesByRegion",
            {"region": "Atlantis"},
            "'Atlantis' is not a region; the regions are: Africa",
        ),
        ("getCountryBankConfig", {"country": "Narnia"}, "'Narnia' is not a country"),
        ("getCountryBankConfig", {"country": "D"}, "`country`"),
        ("validateBankDetails", {}, "Give an iban, a bic, or a country with bankCode and accountNumber"),
        ("validateBankDetails", {"country": "DE", "bankCode": "37040044"}, "Give an iban"),
        (
            "validateBankDetails",
            {"country": "XQ", "bankCode": "1", "accountNumber": "2"},
            "'XQ' is not a country",
        ),
        ("validateTaxId", {"number": "123", "country": "ZZ"}, "'ZZ' is not a country"),
        (
            "validateTaxId",
            {"number": "123", "country": "DE", "kind": "ssn"},
            "'ssn' is not a number checked for DE",
        ),
        (
            "validateTaxId",
            {"number": "123", "country": "AQ"},
            "No tax or identity numbers of AQ are checked here",
        ),
        ("validateTaxId", {"number": "   ", "country": "DE"}, "number"),
        ("getPublicHolidays", {"country": "DE", "year": 1500}, "`year`"),
        ("getPublicHolidays", {"country": "DE", "year": 1950}, "known from 1991 to 2100, not for 1950"),
        ("getPublicHolidays", {"country": "DE", "subdivision": "XX"}, "'XX' is not a subdivision of DE"),
        ("getPublicHolidays", {"country": "Kosovo"}, "'Kosovo' is not a country"),
    ],
)
def test_unknown_codes_and_bad_values_are_clear_errors(people, name, arguments, said):
    assert said in refused(people["member"], name, arguments)


def test_countries_by_region_lists_the_regions_then_a_regions_countries(people):
    every = ok(people["viewer"], "getCountriesByRegion", {})
    europe = ok(people["viewer"], "getCountriesByRegion", {"region": "europe"})
    union = ok(people["viewer"], "getCountriesByRegion", {"region": "EU"})

    assert every["region"] is None and every["countries"] == []
    assert {
        "name": "Western Africa",
        "kind": "intermediate region",
        "partOf": "Sub-Saharan Africa",
        "countries": 17,
    } in every["regions"]
    assert europe["region"]["name"] == "Europe" and europe["region"]["kind"] == "region"
    assert {part["name"] for part in europe["regions"]} == {
        "Eastern Europe",
        "Northern Europe",
        "Southern Europe",
        "Western Europe",
    }
    germany = next(country for country in europe["countries"] if country["code"] == "DE")
    assert germany == {
        "code": "DE",
        "alpha3": "DEU",
        "name": "Germany",
        "region": "Europe",
        "subregion": "Western Europe",
        "intermediateRegion": "",
        "eu": True,
    }
    codes = {country["code"] for country in union["countries"]}
    assert len(codes) == 27 and {"DE", "FR", "GR", "IE"} <= codes and not {"GB", "NO", "CH"} & codes
    # One country once: the United Kingdom, not also its nations.
    north = ok(people["viewer"], "getCountriesByRegion", {"region": "Northern Europe"})["countries"]
    assert [country["code"] for country in north].count("GB") == 1


def test_a_countrys_bank_config(people):
    germany = ok(people["viewer"], "getCountryBankConfig", {"country": "Germany"})
    britain = ok(people["viewer"], "getCountryBankConfig", {"country": "GBR"})
    states = ok(people["viewer"], "getCountryBankConfig", {"country": "us"})

    assert (
        germany["country"] == "DE" and germany["ibanLength"] == 22 and germany["ibanFormat"] == "DE2!n8!n10!n"
    )
    assert germany["parts"] == [
        {"name": "bankCode", "start": 0, "length": 8},
        {"name": "accountNumber", "start": 8, "length": 10},
    ]
    assert germany["sepa"] is True and germany["banksKnown"] > 1000
    assert [part["name"] for part in britain["parts"]] == ["bankCode", "branchCode", "accountNumber"]
    assert states["usesIban"] is False and states["ibanLength"] is None and states["parts"] == []
    assert states["bicPattern"] == "^[A-Z]{4}US[A-Z0-9]{2}([A-Z0-9]{3})?$"


def test_bank_details_checked_and_an_iban_made_from_a_national_account(people):
    good = ok(
        people["viewer"], "validateBankDetails", {"iban": "de89 3704 0044 0532 0130 00", "bic": "COBADEFFXXX"}
    )
    bad = ok(people["viewer"], "validateBankDetails", {"iban": "DE89 3704 0044 0532 0130 01", "bic": "COBA"})
    made = ok(
        people["viewer"],
        "validateBankDetails",
        {"country": "Germany", "bankCode": "37040044", "accountNumber": "532013000"},
    )
    other_bank = ok(
        people["viewer"], "validateBankDetails", {"iban": "DE89370400440532013000", "bic": "DEUTDEFF"}
    )

    assert good["iban"]["valid"] is True and good["iban"]["iban"] == "DE89370400440532013000"
    assert good["iban"]["formatted"] == "DE89 3704 0044 0532 0130 00"
    assert good["iban"]["bankName"] == "Commerzbank" and good["iban"]["bic"] == "COBADEFFXXX"
    assert good["bic"]["valid"] is True and good["bic"]["known"] is True and good["bicMatchesIban"] is True
    assert bad["iban"]["valid"] is False and "checksum" in bad["iban"]["problem"]
    assert bad["bic"]["valid"] is False and bad["bicMatchesIban"] is None
    assert made["iban"]["valid"] is True and made["iban"]["iban"] == "DE89370400440532013000"
    assert other_bank["bicMatchesIban"] is False


def test_tax_ids_checked_for_their_country(people):
    vat = ok(people["viewer"], "validateTaxId", {"number": "DE 136 695 976", "country": "DE"})
    typo = ok(people["viewer"], "validateTaxId", {"number": "DE136695977", "country": "DE", "kind": "vat"})
    greek = ok(people["viewer"], "validateTaxId", {"number": "094259216", "country": "GR", "kind": "vat"})
    personal = ok(people["viewer"], "validateTaxId", {"number": "36 574 261 809", "country": "DE"})

    assert vat["valid"] is True and vat["kind"]["kind"] == "vat" and vat["number"] == "DE136695976"
    assert "VAT" in vat["kind"]["name"] and vat["registrationChecked"] is False
    assert typo["valid"] is False and typo["kind"] is None and "check digit" in typo["problem"]
    assert [kind["kind"] for kind in typo["tried"]] == ["vat"]
    assert greek["valid"] is True and greek["number"] == "EL094259216"
    assert personal["valid"] is True and personal["kind"]["kind"] == "idnr"
    assert personal["tried"][0]["kind"] == "vat"


def test_public_holidays_of_a_country_and_of_a_state(people):
    germany = ok(people["viewer"], "getPublicHolidays", {"country": "DE", "year": 2026})
    bavaria = ok(
        people["viewer"], "getPublicHolidays", {"country": "DE", "subdivision": "Bayern", "year": 2026}
    )
    this_year = ok(people["viewer"], "getPublicHolidays", {"country": "FR"})

    assert {"date": "2026-10-03", "name": "German Unity Day"} in germany["holidays"]
    assert germany["subdivision"] == "" and "BY" in germany["subdivisions"]
    assert {"date": "2026-01-06", "name": "Epiphany"} not in germany["holidays"]
    assert (
        bavaria["subdivision"] == "BY" and {"date": "2026-01-06", "name": "Epiphany"} in bavaria["holidays"]
    )
    assert [day["date"] for day in bavaria["holidays"]] == sorted(day["date"] for day in bavaria["holidays"])
    assert (
        this_year["year"] >= 2026
        and {"date": f"{this_year['year']}-07-14", "name": "National Day"} in this_year["holidays"]
    )
