"""A contacts import of 10,000 rows of which 37 are bad (issue 43), through the catalogue's
tools as an agent calls them: validateDataImport (every row checked, each bad one named by row
and column, nothing made), commitDataImport with skipInvalidRows (the 9,963 good rows made in
batches of 500, each batch in its own transaction), and the same commit again (one effect: it
makes nothing). Goal: the commit within 30 s on this machine's 2 cores, as loaded as it is.

For comparison, `--row-by-row N` (default 300) times a commit of N rows through the contacts'
create service one row at a time (the path an area without `create_many` keeps, and every
import took before), from which the time of 10,000 rows that way is extrapolated.

Run: `python3 bootstrap.py bench imports` (`-- --rows 10000 --row-by-row 500`).
"""

import argparse
import dataclasses
import os
import time


def contacts_file(rows: int, *, tag: str) -> str:
    """The file of the issue: `rows` rows, 37 of them bad (spread over it: every other one a broken
    e-mail address, the others an unknown country); the same as the scenario's test."""
    bad = {n: "email" if i % 2 else "country" for i, n in enumerate(range(50, rows, rows // 37 + 1))}
    lines = ["firstName,lastName,email,phone,country,tags"]
    for n in range(rows):
        if bad.get(n) == "email":
            lines.append(f"Bad{n},Row,bad{n}-at-example,,GB,")
        elif bad.get(n) == "country":
            lines.append(f"Bad{n},Row,bad{n}@{tag}.example,,Atlantis,")
        else:
            lines.append(f"Person{n},Number{n},p{n}@{tag}.example,+44 20 7946 {n % 10_000:04d},GB,imported")
    return "\n".join(lines) + "\n"


def run(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="bench imports")
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--row-by-row", type=int, default=300, help="rows committed one by one (0: none)")
    args, _ = parser.parse_known_args(argv)

    from bench.common import use_fresh_database

    use_fresh_database("imports_bench")
    import logging

    from django.db import connection

    from apps.catalogue.testing import call, confirmed, text_of
    from apps.contacts.models import Contact
    from apps.core import permissions, transfer
    from apps.tenancy.services import workspace_create

    logging.disable(logging.INFO)
    workspace = workspace_create(
        name="Imports",
        domains=["imports.test"],
        owner_email="owner@imports.test",
        installed_areas=list(permissions.optional_area_keys()),
    )
    connection.set_tenant(workspace)
    from apps.accounts.models import User

    owner = User.objects.select_related("role").get(email="owner@imports.test")
    confirm = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

    def tool(name: str, arguments: dict[str, object], **context: object) -> tuple[dict[str, object], float]:
        begun = time.perf_counter()
        result = call(owner, name, arguments, **context)
        spent = time.perf_counter() - begun
        if result["isError"]:
            raise SystemExit(f"{name}: {text_of(result)}")
        return result["structuredContent"], spent

    print(f"load (1, 5, 15 min) before: {os.getloadavg()}")
    text = contacts_file(args.rows, tag="bulk")
    plan, validating = tool("validateDataImport", {"entityType": "contact", "csvText": text})
    print(
        f"validate {plan['rows']:,} rows: {validating:.1f} s "
        f"({plan['invalidRows']} bad, {len(plan['problems'])} problems named, {plan['toImport']:,} to import)"
    )
    assert not Contact.objects.filter(email__endswith="@bulk.example").exists()
    done, committing = tool("commitDataImport", {"token": plan["token"], "skipInvalidRows": True}, **confirm)
    made = Contact.objects.filter(email__endswith="@bulk.example").count()
    print(
        f"commit: {committing:.1f} s, {done['created']:,} made ({made:,} in the table), "
        f"{done['created'] / committing:,.0f} rows/s"
    )
    again, twice = tool("commitDataImport", {"token": plan["token"], "skipInvalidRows": True}, **confirm)
    print(
        f"commit again: {twice * 1000:.0f} ms, alreadyCommitted={again['alreadyCommitted']}, "
        f"{Contact.objects.filter(email__endswith='@bulk.example').count():,} in the table"
    )

    if args.row_by_row:
        declared = transfer.get("contact")
        assert declared is not None
        transfer._importables["contact"] = dataclasses.replace(declared, create_many=None)
        try:
            text = "\n".join(
                contacts_file(args.row_by_row + 1, tag="rows").splitlines()[: args.row_by_row + 1]
            )
            plan, _spent = tool("validateDataImport", {"entityType": "contact", "csvText": text + "\n"})
            done, one_by_one = tool(
                "commitDataImport", {"token": plan["token"], "skipInvalidRows": True}, **confirm
            )
        finally:
            transfer._importables["contact"] = declared
        each = one_by_one / max(done["created"], 1)
        print(
            f"row by row (no create_many), {done['created']:,} rows: {one_by_one:.1f} s, "
            f"{each * 1000:.1f} ms a row; 10,000 rows would take ~{each * 10_000:.0f} s"
        )
    print(f"load (1, 5, 15 min) after: {os.getloadavg()}")
    # The database stays until the next run: the tool calls' audit rows are written as the
    # process ends, into it.
    connection.set_schema_to_public()
