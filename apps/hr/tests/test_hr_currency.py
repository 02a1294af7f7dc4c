"""Pay is in a currency ISO 4217 lists: a made-up code is refused by name, and nothing is kept."""

from apps.catalogue.testing import ok, refused
from apps.hr.tests.factories import EmployeeFactory


def test_pay_in_a_code_iso_4217_does_not_list_is_refused(people):
    owner = people["owner"]
    employee = EmployeeFactory(actor=owner)
    ok(
        owner,
        "updateEmployee",
        {"employeeId": employee.pk, "changes": {"payAmount": 50000, "payCurrency": "chf"}},
    )

    message = refused(
        owner,
        "updateEmployee",
        {"employeeId": employee.pk, "changes": {"payAmount": 1, "payCurrency": "ZZZ"}},
    )

    assert "`payCurrency`: 'ZZZ' is not a three-letter ISO 4217 code" in message
    kept = ok(owner, "getEmployee", {"employeeId": employee.pk})["restricted"]
    assert (kept["payCurrency"], float(kept["payAmount"])) == ("CHF", 50000)
