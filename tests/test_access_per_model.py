"""Every model that declares its access (apps.core.records) is read as its declaration says, model
by model. For each person of the built-in roles (owner, admin, member, viewer):

- `restrict(person)` answers the rows every person of the area sees and the person's own (their
  owner path, `also`, a share), every row for whoever sees all of them (the area's admins, a
  `sees_all` permission, held alone by a person of a role of its own) but others' drafts, and
  nothing to a role without the permission;
- what the area's list tool answers them is the same rows;
- `restrict(person, "change" | "delete")` agrees with the record-by-record rule (`allows`), and
  `fetch` finds what `restrict` gives;
- a run for no person (ANYONE) reads the rows every person sees, and changes nothing.

The rows come from each area's tests/factories.py (`apps.core.factories.access_rows`). A model
without them fails here: a new area's model joins by its declaration.
"""

from typing import Any

import pytest
from django.apps import apps

from apps.catalogue.testing import person_with
from apps.core.errors import AppError
from apps.core.factories import AccessRows, access_builders
from apps.core.records import ANYONE, Access, RecordQuerySet

ACTIONS = ("view", "change", "delete")


def _declared() -> list[str]:
    """Every model that declares its access, and every one read through `restrict`."""
    return sorted(
        model._meta.label
        for model in apps.get_models()
        if isinstance(getattr(model, "access", None), Access)
        or isinstance(model._default_manager.get_queryset(), RecordQuerySet)
    )


DECLARED = _declared()


def ids(rows: Any) -> set[int]:
    return {row.pk for row in rows}


def expected_view(access: Access, person: Any, role: str, rows: AccessRows) -> set[int]:
    """What the declaration says `person` sees of the rows made."""
    if not access.may(person, "view"):
        return set()
    own = ids(rows.own.get(role, []))
    if access.all_rows(person, "view"):
        return ids(rows.made) - (ids(rows.drafts) - own)
    return ids(rows.everyone) | own


def test_the_areas_models_are_all_here():
    assert {"contacts.Contact", "hr.LeaveRequest", "hr.TimeEntry", "hr.Assessment", "mail.Mailbox"} <= set(
        DECLARED
    )


@pytest.mark.parametrize("label", DECLARED)
def test_restrict_follows_the_declaration(label, people):
    builder = access_builders().get(label)
    if builder is None:
        pytest.fail(
            f"{label} declares its access but no rows are made for it: register them in its area's "
            f"tests/factories.py with apps.core.factories.access_rows({label!r})"
        )
    model = apps.get_model(label)
    access: Access = model.access
    assert isinstance(model._default_manager.get_queryset(), RecordQuerySet), (
        f"{label} declares its access but is not read through restrict: give it "
        "`objects = RecordQuerySet.as_manager()`"
    )
    rows = builder(people)
    made = ids(rows.made)
    assert made, f"{label}: the rows made for the test are none"
    # The rows as the database has them (a service may have changed them after making them).
    fresh = model._base_manager.in_bulk(made)

    seen = {}
    for role, person in people.items():
        seen[role] = ids(model.objects.restrict(person).filter(pk__in=made))
        assert seen[role] == expected_view(access, person, role, rows), f"{label} as the {role}"
    if ids(rows.everyone) != made:
        # Rows that are not everyone's: someone who sees rows does not see them all (another's).
        assert any(found and found != made for found in seen.values()), (
            f"{label}: the rows made do not tell anyone's own from another's"
        )
    assert ids(model.objects.restrict(ANYONE).filter(pk__in=made)) == ids(rows.everyone), label
    assert not model.objects.restrict(ANYONE, "change").filter(pk__in=made).exists(), label

    for role, person in people.items():
        for action in ACTIONS[1:]:
            got = ids(model.objects.restrict(person, action).filter(pk__in=made))
            allowed = {pk for pk, row in fresh.items() if access.allows(person, row, action)}
            assert got == allowed, f"{label}: {action} as the {role}"
        for pk in made:
            assert _fetched(model, person, pk, "view") == (pk in seen[role]), f"{label}: fetch {pk} as {role}"
            changed = pk in ids(model.objects.restrict(person, "change").filter(pk=pk))
            assert _fetched(model, person, pk, "change") == changed, (
                f"{label}: fetch {pk} to change as {role}"
            )

    # A permission that sees (or changes) every row does so alone, without the area's admin one.
    for permission in access.sees_all:
        seer = person_with({access.permission("view") or "", permission}, email=f"sees-{label}@acme.example")
        assert ids(model.objects.restrict(seer).filter(pk__in=made)) == made - ids(rows.drafts), label
    for permission in access.changes_all:
        wanted = {access.permission("view") or "", access.permission("change") or "", permission}
        changer = person_with(wanted, email=f"changes-{label}@acme.example")
        changed = ids(model.objects.restrict(changer, "change").filter(pk__in=made))
        assert changed == made - ids(rows.drafts), label
        assert ids(model.objects.restrict(changer).filter(pk__in=made)) == ids(rows.everyone), label

    if rows.listed is not None:
        for role, person in people.items():
            listed = rows.listed(person)
            if listed is not None:
                assert set(listed) & made == seen[role], f"{label}: the list tool as the {role}"


def _fetched(model: Any, person: Any, pk: int, action: Any) -> bool:
    try:
        model.objects.fetch(person, pk, action)
    except AppError:
        return False
    return True
