"""Administering people through the Platform area's tools, through the services the settings pages
use: inviting (the person accepts by the e-mailed link and is signed in), changing a role,
deactivating (every way in revoked at once). Per tool a normal call, bad input and a refusal."""

import re
import secrets
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.core import mail
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model, get_refresh_token_model

from apps.accounts.models import PersonalAccessToken, Role, User
from apps.accounts.services import access_token_create
from apps.apikeys.models import ApiKey
from apps.apikeys.services import api_key_create
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.signals import tool_list_changed
from apps.catalogue.testing import call, confirmed, ok, person_with, person_without, refused
from apps.core.credentials import credentials_revoked
from config.celery import app as celery_app

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
NEW = "quiet-harbour-lantern-42"


@pytest.fixture
def eager_tasks():  # type: ignore[no-untyped-def]
    """The invitation's e-mail is sent by a worker: here, at once, into Django's locmem outbox."""
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


def colleague(role: str = "member") -> User:
    return User.objects.create_user(
        email=f"colleague-{secrets.token_hex(4)}@acme.example",
        password="atrium-demo",
        role=Role.objects.get(key=role),
    )


def new_email() -> str:
    return f"invited-{secrets.token_hex(4)}@example.com"


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("inviteWorkspaceUser", {"email": "x@example.com", "role": "member"}),
        ("updateUserRole", {"userId": 1, "role": "viewer"}),
        ("deactivateWorkspaceUser", {"userId": 1}),
        ("manageRole", {"action": "create", "name": "x"}),
        ("manageInstalledApps", {"install": ["contacts"]}),
    ],
)
def test_a_role_without_platform_admin_neither_lists_nor_calls_them(acme, people, name, arguments):
    person = person_without("platform.admin", email=f"no-{name.lower()}@acme.example")

    for who in (person, people["member"], people["viewer"]):
        with pytest.raises(ToolNotFound):
            call(who, name, arguments, **CONFIRM)


def test_platform_admin_without_people_manage_is_refused_and_nothing_changes(acme):
    from apps.core.permissions import all_permissions

    codes = {member.value for member in all_permissions()} - {"people.manage"}
    person = person_with(codes, email="tools-but-not-people@acme.example")
    target = colleague()
    email = new_email()

    assert "do not have permission" in refused(
        person, "inviteWorkspaceUser", {"email": email, "role": "viewer"}, **CONFIRM
    )
    assert "do not have permission" in refused(
        person, "updateUserRole", {"userId": target.pk, "role": "viewer"}, **CONFIRM
    )
    assert "do not have permission" in refused(
        person, "deactivateWorkspaceUser", {"userId": target.pk}, **CONFIRM
    )

    target.refresh_from_db()
    assert not User.objects.filter(email=email).exists()
    assert (target.role.key, target.is_active) == ("member", True)


# --- inviting -------------------------------------------------------------------------------------


def test_an_admin_invites_a_person_who_accepts_by_the_emailed_link_and_is_signed_in(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    email = new_email()
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        answer = ok(
            people["admin"],
            "inviteWorkspaceUser",
            {"email": f"  {email.upper()} ", "role": "member", "fullName": " Sam   Newcomer "},
            **CONFIRM,
        )

    invited = User.objects.get(email=email)
    assert answer["id"] == invited.pk and answer["email"] == email and answer["invited"] is True
    assert answer["role"] == {"key": "member", "name": invited.role.name} and answer["name"] == "Sam Newcomer"
    assert invited.is_active and not invited.has_usable_password()
    [message] = mail.outbox
    assert message.to == [email]
    assert "invited you to" in message.body and "admin" in message.body.lower()
    [link] = re.findall(r"https?://\S+", message.body)

    browser = Client(HTTP_HOST="127.0.0.1")
    opened = browser.get(urlsplit(link).path)
    assert opened.status_code == 302 and opened["Location"].endswith("/set-password/")
    form = browser.get(opened["Location"]).content.decode()
    assert f"You were invited as {email}" in form
    done = browser.post(opened["Location"], {"new_password1": NEW, "new_password2": NEW})

    assert done.status_code == 302
    home = browser.get(done["Location"])
    assert home.status_code == 200 and email in home.content.decode()
    invited.refresh_from_db()
    assert invited.check_password(NEW) and invited.last_login is not None
    # It works once.
    again = Client(HTTP_HOST="127.0.0.1").get(urlsplit(link).path)
    assert again.status_code == 200 and 'data-testid="invalid-link"' in again.content.decode()
    # And they sign in with their password from now on.
    signed = Client(HTTP_HOST="127.0.0.1", REMOTE_ADDR="2001:db8::" + secrets.token_hex(2))
    assert signed.post("/accounts/sign-in/", {"username": email, "password": NEW}).status_code == 302


def test_the_people_page_invites_through_the_same_service(
    people, eager_tasks, django_capture_on_commit_callbacks
):
    email = new_email()
    browser = Client(HTTP_HOST="127.0.0.1")
    browser.force_login(people["admin"])
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        posted = browser.post(
            "/settings/people/", {"email": email, "role": Role.objects.get(key="viewer").pk, "password": ""}
        )

    assert posted.status_code == 302
    assert not User.objects.get(email=email).has_usable_password()
    assert [message.to for message in mail.outbox] == [[email]]
    assert "/accounts/invitation/" in mail.outbox[0].body


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"email": "not-an-address", "role": "member"}, "email"),
        ({"email": "{new}", "role": "superhero"}, "'superhero' is not a role of this workspace"),
        ({"email": "member@acme.example", "role": "viewer"}, "already in the workspace"),
        # An admin hands out no role that allows more than their own.
        ({"email": "{new}", "role": "owner"}, "more than your own"),
    ],
)
def test_bad_invitations_are_refused_and_nobody_is_added_or_mailed(
    people, eager_tasks, django_capture_on_commit_callbacks, arguments, says
):
    email = new_email()
    arguments = {**arguments, "email": arguments["email"].replace("{new}", email)}
    before = User.objects.count()
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        assert says in refused(people["admin"], "inviteWorkspaceUser", arguments, **CONFIRM)

    assert User.objects.count() == before and mail.outbox == []


def test_an_invitation_waits_for_confirmation(people):
    email = new_email()

    answer = refused(people["admin"], "inviteWorkspaceUser", {"email": email, "role": "member"})

    assert "Confirmation required" in answer
    assert not User.objects.filter(email=email).exists()


# --- changing a role ------------------------------------------------------------------------------


def test_an_admin_changes_a_role_and_the_persons_tools_follow(people):
    person = colleague("member")

    answer = ok(people["admin"], "updateUserRole", {"userId": person.pk, "role": " Viewer "}, **CONFIRM)

    person.refresh_from_db()
    assert answer["role"]["key"] == "viewer" == person.role.key
    # A viewer no longer has a member's write tools.
    with pytest.raises(ToolNotFound):
        call(person, "createContact", {"firstName": "x"})


@pytest.mark.parametrize(
    ("who", "target", "role", "says"),
    [
        ("admin", "new member", "owner", "more than your own"),
        # Taking away a role that allows more than one's own is giving it, the other way round.
        ("admin", "owner", "member", "more than your own"),
        ("owner", "owner", "admin", "at least one active owner"),
        ("admin", "new member", "nobody", "'nobody' is not a role"),
        ("admin", 999_999, "viewer", "Person 999999 was not found"),
    ],
)
def test_a_role_change_that_would_escalate_or_leave_no_owner_is_refused_and_nothing_changes(
    people, who, target, role, says
):
    person = colleague("member") if target == "new member" else people.get(target)
    user_id = person.pk if person is not None else target
    roles = dict(User.objects.values_list("pk", "role__key"))

    assert says in refused(people[who], "updateUserRole", {"userId": user_id, "role": role}, **CONFIRM)

    assert dict(User.objects.values_list("pk", "role__key")) == roles


# --- deactivating ---------------------------------------------------------------------------------


@pytest.fixture
def told():  # type: ignore[no-untyped-def]
    """What the doors were told: a change of people's access (every process drops what it keeps
    of their credentials, apps.mcp.signals), and credentials revoked one by one."""
    seen: list[tuple[str, list[int] | None]] = []

    def access(sender, *, schema_name, user_ids, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(("access", user_ids))

    def revoked(sender, *, schema_name, user_ids, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(("revoked", user_ids))

    tool_list_changed.connect(access, dispatch_uid="test-admin-tools-access")
    credentials_revoked.connect(revoked, dispatch_uid="test-admin-tools-revoked")
    yield seen
    tool_list_changed.disconnect(dispatch_uid="test-admin-tools-access")
    credentials_revoked.disconnect(dispatch_uid="test-admin-tools-revoked")


def test_deactivating_revokes_every_way_in_at_once(people, told):
    person = colleague("member")
    token, _raw = access_token_create(user=person, name="laptop")
    key = api_key_create(user=person, label="script").key
    application = get_application_model().objects.create(
        name="Editor",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9/cb",
    )
    oauth = get_access_token_model().objects.create(
        user=person,
        application=application,
        token_checksum=secrets.token_hex(32),
        expires=timezone.now() + timedelta(hours=1),
    )
    refresh = get_refresh_token_model().objects.create(
        user=person, application=application, token=secrets.token_hex(16), access_token=oauth
    )
    session = SessionStore()
    session["_auth_user_id"] = str(person.pk)
    session.create()
    others = PersonalAccessToken.objects.filter(user=people["member"], revoked_at__isnull=True).count()

    told.clear()

    answer = ok(people["admin"], "deactivateWorkspaceUser", {"userId": person.pk}, **CONFIRM)

    assert answer["active"] is False
    person.refresh_from_db()
    token.refresh_from_db()
    key.refresh_from_db()
    oauth.refresh_from_db()
    refresh.refresh_from_db()
    assert not person.is_active
    assert token.revoked_at is not None and key.revoked_at is not None
    assert oauth.is_expired() and refresh.revoked is not None
    assert not SessionStore().exists(session.session_key)
    # Told once, not once per credential.
    assert told == [("access", [person.pk])]
    # Nobody else's.
    assert (
        PersonalAccessToken.objects.filter(user=people["member"], revoked_at__isnull=True).count() == others
    )
    assert ApiKey.objects.filter(user=person, revoked_at__isnull=True).count() == 0


def test_the_last_owner_cannot_be_deactivated(people):
    owners = User.objects.filter(role__key="owner", is_active=True).count()
    assert owners == 1

    answer = refused(people["owner"], "deactivateWorkspaceUser", {"userId": people["owner"].pk}, **CONFIRM)

    assert "at least one active owner" in answer
    people["owner"].refresh_from_db()
    assert people["owner"].is_active


def test_an_admin_cannot_deactivate_an_owner(people):
    answer = refused(people["admin"], "deactivateWorkspaceUser", {"userId": people["owner"].pk}, **CONFIRM)

    assert "more than your own" in answer
    people["owner"].refresh_from_db()
    assert people["owner"].is_active


# --- custom roles ---------------------------------------------------------------------------------


def test_manage_role_creates_renames_sets_permissions_and_deletes(people):
    created = ok(
        people["admin"],
        "manageRole",
        {"action": "create", "name": "Contract readers", "permissions": ["contacts.view", "platform.view"]},
        **CONFIRM,
    )["role"]
    assert created["key"] == "contract-readers" and created["permissions"] == [
        "contacts.view",
        "platform.view",
    ]

    renamed = ok(
        people["admin"],
        "manageRole",
        {"action": "update", "role": "contract-readers", "name": "Readers"},
        **CONFIRM,
    )["role"]
    assert (renamed["name"], renamed["permissions"]) == ("Readers", ["contacts.view", "platform.view"])
    widened = ok(
        people["admin"],
        "manageRole",
        {"action": "update", "role": "contract-readers", "permissions": ["contacts.view", "contacts.edit"]},
        **CONFIRM,
    )["role"]
    assert widened["permissions"] == ["contacts.edit", "contacts.view"] and widened["name"] == "Readers"

    deleted = ok(people["admin"], "manageRole", {"action": "delete", "role": "contract-readers"}, **CONFIRM)
    assert deleted == {"action": "delete", "role": None, "reassigned": 0}
    assert not Role.objects.filter(key="contract-readers").exists()


def test_a_role_in_use_is_deleted_only_with_its_people_reassigned(people):
    role = Role.objects.create(key="temps", name="Temps", permissions=["platform.view"])
    holder = User.objects.create_user(email=f"temp-{secrets.token_hex(3)}@acme.example", role=role)

    assert "People still have this role" in refused(
        people["admin"], "manageRole", {"action": "delete", "role": "temps"}, **CONFIRM
    )
    assert Role.objects.filter(key="temps").exists()

    answer = ok(
        people["admin"],
        "manageRole",
        {"action": "delete", "role": "temps", "reassignTo": "viewer"},
        **CONFIRM,
    )

    holder.refresh_from_db()
    assert answer["reassigned"] == 1 and holder.role.key == "viewer"
    assert not Role.objects.filter(key="temps").exists()


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        # Never more than the caller holds: workspace.own is the owners'.
        ({"action": "create", "name": "Crown", "permissions": ["workspace.own"]}, "more than your own"),
        (
            {"action": "create", "name": "Odd", "permissions": ["contacts.fly"]},
            "Unknown permissions: contacts.fly",
        ),
        ({"action": "create", "name": "Admin", "permissions": []}, "already exists"),
        ({"action": "update", "role": "member", "name": "Members"}, "Built-in roles cannot be changed"),
        ({"action": "update", "role": "ghost", "name": "Boo"}, "'ghost' is not a role"),
        ({"action": "update", "role": "", "name": "Boo"}, "Say which role to update"),
        ({"action": "update", "role": "temps"}, "Say what to change"),
        ({"action": "delete", "role": "viewer"}, "Built-in roles cannot be deleted"),
        ({"action": "delete", "role": "temps", "reassignTo": "owner"}, "more than your own"),
        (
            {"action": "delete", "role": "temps", "reassignTo": "temps"},
            "another role than the one being deleted",
        ),
    ],
)
def test_bad_role_changes_are_refused_and_nothing_changes(people, arguments, says):
    role = Role.objects.create(key="temps", name="Temps", permissions=["platform.view"])
    User.objects.create_user(email=f"temp-{secrets.token_hex(3)}@acme.example", role=role)
    roles = list(Role.objects.order_by("pk").values_list("key", "name", "permissions"))
    holders = dict(User.objects.values_list("pk", "role__key"))

    assert says in refused(people["admin"], "manageRole", arguments, **CONFIRM)

    assert list(Role.objects.order_by("pk").values_list("key", "name", "permissions")) == roles
    assert dict(User.objects.values_list("pk", "role__key")) == holders


def test_manage_role_needs_roles_manage(acme):
    from apps.core.permissions import all_permissions

    codes = {member.value for member in all_permissions()} - {"roles.manage"}
    person = person_with(codes, email="tools-but-not-roles@acme.example")

    assert "do not have permission" in refused(
        person, "manageRole", {"action": "create", "name": "Nope", "permissions": []}, **CONFIRM
    )
    assert not Role.objects.filter(key="nope").exists()


# --- installed areas ------------------------------------------------------------------------------


def test_list_installed_apps_tells_core_installed_and_available(people):
    apps = {app["key"]: app for app in ok(people["viewer"], "listInstalledApps")["apps"]}

    assert apps["platform"]["core"] is True and apps["platform"]["installed"] is True
    assert apps["contacts"]["core"] is False and apps["contacts"]["installed"] is True
    assert apps["contacts"]["title"] == "Contacts"


def test_uninstalling_hides_the_areas_tools_and_pages_and_keeps_its_data(
    acme, people, django_capture_on_commit_callbacks
):
    from apps.catalogue.dispatch import list_tools
    from apps.catalogue.testing import principal_for
    from apps.departments.tests.factories import DepartmentFactory

    department = DepartmentFactory(actor=people["owner"], name="Kept through uninstalling")
    saved = list(acme.installed_areas)
    browser = Client(HTTP_HOST="127.0.0.1")
    browser.force_login(people["member"])
    assert browser.get("/settings/departments/").status_code == 200
    try:
        with django_capture_on_commit_callbacks(execute=True):
            answer = ok(people["admin"], "manageInstalledApps", {"uninstall": ["Departments"]}, **CONFIRM)
        assert {app["key"]: app["installed"] for app in answer["apps"]}["departments"] is False

        names = [tool["name"] for tool in list_tools(principal=principal_for(people["member"]))]
        assert "listDepartments" not in names and "listContacts" in names
        with pytest.raises(ToolNotFound):
            call(people["member"], "listDepartments", {})
        assert browser.get("/settings/departments/").status_code in (403, 404)

        with django_capture_on_commit_callbacks(execute=True):
            ok(people["admin"], "manageInstalledApps", {"install": ["departments"]}, **CONFIRM)
        # The data is as it was.
        listed = ok(people["member"], "listDepartments", {})
        assert department.pk in [row["id"] for row in listed["items"]]
    finally:
        acme.installed_areas = saved


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"uninstall": ["platform"]}, "platform is a core area"),
        ({"uninstall": ["people"]}, "people is a core area"),
        ({"install": ["astrology"]}, "'astrology' is not an area"),
        ({"install": ["contacts"], "uninstall": ["contacts"]}, "not both at once"),
        ({}, "Say what to change"),
    ],
)
def test_bad_area_changes_are_refused_and_nothing_changes(acme, people, arguments, says):
    before = list(acme.installed_areas)

    assert says in refused(people["admin"], "manageInstalledApps", arguments, **CONFIRM)

    acme.refresh_from_db()
    assert acme.installed_areas == before


def test_manage_installed_apps_needs_workspace_manage(acme):
    from apps.core.permissions import all_permissions

    codes = {member.value for member in all_permissions()} - {"workspace.manage"}
    person = person_with(codes, email="tools-but-not-workspace@acme.example")
    before = list(acme.installed_areas)

    assert "do not have permission" in refused(
        person, "manageInstalledApps", {"uninstall": ["departments"]}, **CONFIRM
    )
    acme.refresh_from_db()
    assert acme.installed_areas == before


def test_nobody_deactivates_themselves_and_nothing_changes(people):
    admin = people["admin"]

    answer = refused(admin, "deactivateWorkspaceUser", {"userId": admin.pk}, **CONFIRM)

    assert "cannot deactivate yourself" in answer
    admin.refresh_from_db()
    assert admin.is_active


def test_deactivating_ends_the_persons_mcp_sessions(people):
    from apps.mcp.models import McpSession

    person = colleague("member")
    mine = McpSession.objects.create(
        digest=secrets.token_hex(32), user=person, protocol_version="2025-06-18", last_seen_at=timezone.now()
    )
    others = McpSession.objects.create(
        digest=secrets.token_hex(32),
        user=people["member"],
        protocol_version="2025-06-18",
        last_seen_at=timezone.now(),
    )

    ok(people["admin"], "deactivateWorkspaceUser", {"userId": person.pk}, **CONFIRM)

    mine.refresh_from_db()
    others.refresh_from_db()
    assert mine.ended_at is not None
    assert others.ended_at is None
