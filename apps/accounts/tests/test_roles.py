import re

import pytest
from django.test import Client

from apps.accounts import services
from apps.accounts.access import can, effective_permissions
from apps.accounts.errors import LastOwner, RoleInUse, RoleNotAssignable
from apps.accounts.models import PersonalAccessToken, Role, User
from apps.core import permissions
from apps.core.errors import Forbidden, ValidationFailed
from apps.core.permissions import Level, PermissionEnum, register_area, register_permissions

pytestmark = pytest.mark.django_db

# An optional area for these tests, as a real area app would declare it.
register_area("testarea", "Test area")


@register_permissions
class SampleAreaPerm(PermissionEnum):
    READ = "testarea.read", Level.READ, "Read test things"
    WRITE = "testarea.write", Level.WRITE, "Write test things"
    DELETE = "testarea.delete", Level.DELETE, "Delete test things"


@pytest.fixture
def with_test_area(acme):
    acme.installed_areas = [*acme.installed_areas, "testarea"]
    acme.save()
    return acme


@pytest.mark.parametrize(
    ("role", "granted"),
    [
        ("owner", {"testarea.read", "testarea.write", "testarea.delete", "people.manage", "workspace.own"}),
        ("admin", {"testarea.read", "testarea.write", "testarea.delete", "people.manage", "roles.manage"}),
        ("member", {"testarea.read", "testarea.write", "people.view"}),
        ("viewer", {"testarea.read", "people.view", "roles.view"}),
    ],
)
def test_built_in_roles_grant_up_to_their_level(with_test_area, people, role, granted):
    held = effective_permissions(people[role])

    assert granted <= held
    refused = {
        code for code in (p.value for p in permissions.all_permissions())
    } - permissions.permissions_up_to(Role.SYSTEM_LEVELS[role])
    assert not (held & refused)


def test_a_permission_of_an_area_that_is_not_installed_is_refused_even_to_the_owner(acme, people):
    acme.installed_areas = [area for area in acme.installed_areas if area != "testarea"]
    acme.save()

    assert not can(people["owner"], SampleAreaPerm.READ)
    assert can(people["owner"], "people.manage")  # core areas are always installed


def test_unknown_permissions_and_inactive_people_get_nothing(with_test_area, people):
    assert not can(people["owner"], "testarea.fly")
    people["owner"].is_active = False
    assert not can(people["owner"], SampleAreaPerm.READ)


def test_the_superuser_flag_grants_nothing_inside_a_workspace(with_test_area, people):
    viewer = people["viewer"]
    viewer.is_superuser = True

    assert viewer.has_perm("testarea.read")
    assert not viewer.has_perm("testarea.delete")


def test_admins_create_custom_roles_and_they_take_effect(with_test_area, people):
    role = services.role_create(
        actor=people["admin"], name="Auditor", permissions=["testarea.read", "testarea.delete"]
    )
    services.user_change_role(actor=people["admin"], user=people["member"], role=role)

    member = User.objects.get(pk=people["member"].pk)
    assert can(member, "testarea.delete")
    assert not can(member, "testarea.write")
    assert role.key == "auditor" and not role.is_system


@pytest.mark.parametrize(
    ("codes", "error"),
    [(["testarea.read", "workspace.own"], RoleNotAssignable), (["made.up"], ValidationFailed)],
)
def test_a_custom_role_cannot_exceed_its_creator_or_name_unknown_permissions(
    with_test_area, people, codes, error
):
    with pytest.raises(error):
        services.role_create(actor=people["admin"], name="Sneaky", permissions=codes)
    assert not Role.objects.filter(name="Sneaky").exists()


def test_members_and_viewers_cannot_manage_roles_or_people(people):
    for role in ("member", "viewer"):
        with pytest.raises(Forbidden):
            services.role_create(actor=people[role], name="X", permissions=[])
        with pytest.raises(Forbidden):
            services.user_change_role(
                actor=people[role], user=people["viewer"], role=Role.objects.get(key="admin")
            )


def test_an_admin_cannot_make_anyone_owner_nor_touch_an_owner(people):
    owner_role = Role.objects.get(key="owner")

    with pytest.raises(RoleNotAssignable):
        services.user_change_role(actor=people["admin"], user=people["member"], role=owner_role)
    with pytest.raises(RoleNotAssignable):
        services.user_change_role(
            actor=people["admin"], user=people["owner"], role=Role.objects.get(key="viewer")
        )
    with pytest.raises(RoleNotAssignable):
        services.user_set_active(actor=people["admin"], user=people["owner"], active=False)


def test_the_last_owner_stays_an_active_owner(people):
    with pytest.raises(LastOwner):
        services.user_change_role(
            actor=people["owner"], user=people["owner"], role=Role.objects.get(key="admin")
        )
    with pytest.raises(LastOwner):
        services.user_set_active(actor=people["owner"], user=people["owner"], active=False)

    services.user_change_role(actor=people["owner"], user=people["admin"], role=Role.objects.get(key="owner"))
    services.user_change_role(actor=people["owner"], user=people["owner"], role=Role.objects.get(key="admin"))
    assert User.objects.get(pk=people["owner"].pk).role.key == "admin"


def test_built_in_roles_cannot_be_changed_or_deleted(people):
    viewer = Role.objects.get(key="viewer")

    with pytest.raises(Forbidden):
        services.role_update(actor=people["owner"], role=viewer, name="Reader", permissions=[])
    with pytest.raises(Forbidden):
        services.role_delete(actor=people["owner"], role=viewer)


def test_a_role_in_use_cannot_be_deleted(with_test_area, people):
    role = services.role_create(actor=people["owner"], name="Temp", permissions=["testarea.read"])
    services.user_change_role(actor=people["owner"], user=people["viewer"], role=role)

    with pytest.raises(RoleInUse):
        services.role_delete(actor=people["owner"], role=role)


def test_adding_a_person_checks_the_password_and_the_address(people):
    viewer_role = Role.objects.get(key="viewer")

    with pytest.raises(ValidationFailed):
        services.user_create(
            actor=people["admin"], email="new@acme.example", role=viewer_role, password="123"
        )
    with pytest.raises(ValidationFailed):
        services.user_create(actor=people["admin"], email="OWNER@acme.example", role=viewer_role)
    person = services.user_create(
        actor=people["admin"],
        email="New@Acme.example",
        role=viewer_role,
        full_name="New Person",
        password="a-long-enough-passphrase",
    )
    assert person.email == "new@acme.example" and person.check_password("a-long-enough-passphrase")


def test_deactivating_revokes_tokens(people):
    services.access_token_create(user=people["member"], name="t")

    services.user_set_active(actor=people["admin"], user=people["member"], active=False)

    assert not PersonalAccessToken.objects.filter(user=people["member"], revoked_at__isnull=True).exists()


def _client_as(user):
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    return client


def test_pages_refuse_what_the_role_does_not_allow(people):
    viewer = _client_as(people["viewer"])

    response = viewer.post("/settings/people/", {"email": "x@acme.example", "role": 1, "password": "x"})
    assert response.status_code == 403
    assert viewer.post("/settings/roles/", {"name": "Mine"}).status_code == 403
    assert not User.objects.filter(email="x@acme.example").exists()


def test_an_admin_adds_a_person_and_changes_a_role_through_the_pages(people):
    admin = _client_as(people["admin"])
    member_role = Role.objects.get(key="member")

    admin.post(
        "/settings/people/",
        {
            "email": "hire@acme.example",
            "full_name": "New Hire",
            "role": member_role.pk,
            "password": "correct-horse-battery",
        },
    )
    hire = User.objects.get(email="hire@acme.example")
    admin.post(f"/settings/people/{hire.pk}/", {"action": "role", "role": Role.objects.get(key="viewer").pk})

    assert User.objects.get(pk=hire.pk).role.key == "viewer"


def test_an_admin_creates_edits_and_deletes_a_role_through_the_pages(with_test_area, people):
    admin = _client_as(people["admin"])

    admin.post("/settings/roles/", {"name": "Reviewer", "permissions": ["testarea.read"]})
    role = Role.objects.get(key="reviewer")
    admin.post(
        f"/settings/roles/{role.pk}/",
        {"name": "Reviewer", "permissions": ["testarea.read", "testarea.write"]},
    )
    assert Role.objects.get(pk=role.pk).permissions == ["testarea.read", "testarea.write"]
    admin.post(f"/settings/roles/{role.pk}/", {"action": "delete"})
    assert not Role.objects.filter(pk=role.pk).exists()


def test_a_refused_change_on_a_page_is_explained(people):
    admin = _client_as(people["admin"])

    response = admin.post(f"/settings/people/{people['owner'].pk}/", {"action": "deactivate"}, follow=True)

    assert "You cannot hand out a role that allows more than your own." in response.content.decode()
    assert User.objects.get(pk=people["owner"].pk).is_active


def test_the_people_and_roles_forms_say_what_is_wrong_the_way_every_page_does(people):
    admin = _client_as(people["admin"])

    html = admin.post("/settings/people/", {"email": "not an address", "password": ""}).content.decode()

    assert '<label for="id_email">Email</label>' in html
    assert '<div class="error" role="alert" id="id_email_error">Enter a valid email address.</div>' in html
    assert re.search(r'<input type="email" name="email"[^>]*aria-invalid="true"', html)
    assert '<small class="muted" id="id_password_helptext">' in html
    assert "errorlist" not in html

    html = admin.get("/settings/roles/").content.decode()
    assert re.search(r"<fieldset>\s*<legend>Permissions</legend>", html)
    assert "errorlist" not in html and "Name:</label>" not in html


def test_the_active_owners_are_locked_before_they_are_counted(people):
    """Two owners demoting or deactivating each other at once: the second waits on the first's
    locks and counts after its change, so one of them stays an owner."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    owner_role = Role.objects.get(key="owner")
    second, third = (
        User.objects.create_user(email=f"{name}-owner@acme.example", password="atrium-demo", role=owner_role)
        for name in ("second", "third")
    )
    for change in (
        lambda: services.user_change_role(actor=second, user=third, role=Role.objects.get(key="admin")),
        lambda: services.user_set_active(actor=people["owner"], user=second, active=False),
    ):
        with CaptureQueriesContext(connection) as queries:
            change()
        sql = [query["sql"] for query in queries.captured_queries]
        # The owners' rows alone (not their roles'), in id order; then the person's row.
        owners = [index for index, text in enumerate(sql) if 'FOR UPDATE OF "accounts_user"' in text]
        person = [index for index, text in enumerate(sql) if text.endswith("FOR UPDATE")]
        assert owners, f"the active owners are counted without a lock: {sql}"
        assert "ORDER BY" in sql[owners[0]]
        # Locked before the person changed is (always the same order: no crosswise waits).
        assert person and owners[0] < person[0], sql


def test_a_person_cannot_deactivate_themselves_on_the_people_page(people):
    from apps.accounts.errors import CannotDeactivateYourself

    with pytest.raises(CannotDeactivateYourself):
        services.user_set_active(actor=people["admin"], user=people["admin"], active=False)
    people["admin"].refresh_from_db()
    assert people["admin"].is_active
