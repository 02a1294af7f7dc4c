"""Step-up codes: sendOtpCode and checkOtpCode (each a normal call, bad input and a refusal), the
lockout after five wrong codes, the authenticator app set up and removed on the profile page, the
workspace's setting on the Security page, and the dispatcher asking a fresh step-up before a
HIGH RISK tool, over MCP (the Streamable HTTP door, with a real access token and API key)."""

import re
import time

import pyotp
import pytest
from django.core import mail

from apps.accounts import otp
from apps.accounts.models import OtpEmailCode, OtpFactor, StepUp, User
from apps.catalogue.dispatch import MemorySession, ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, person_without, refused, text_of
from apps.core import encryption
from apps.mcp.testing import Door, pat_and_key

pytestmark = pytest.mark.django_db

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


def emailed_code() -> str:
    found = re.search(r"step-up code is (\d{6})", mail.outbox[-1].body)
    assert found, mail.outbox[-1].body
    return found.group(1)


def app_of(user: User) -> pyotp.TOTP:
    """The person's authenticator app, set up and confirmed (what the profile page does)."""
    otp.totp_start(user=user)
    secret = encryption.decrypt(OtpFactor.objects.get(user=user).totp_secret)
    app = pyotp.TOTP(secret)
    otp.totp_confirm(user=user, code=app.at(time.time() - 30))  # the step before: now's stays fresh
    return app


@pytest.fixture
def step_up_on(acme):  # type: ignore[no-untyped-def]
    acme.step_up_required = True
    acme.step_up_minutes = 15
    acme.save(update_fields=["step_up_required", "step_up_minutes"])
    yield acme
    acme.step_up_required = False


# --- sendOtpCode ---------------------------------------------------------------------------------


def test_send_emails_a_six_digit_code_kept_only_as_a_digest(people):
    member = people["member"]
    answer = ok(member, "sendOtpCode")

    assert answer["sent"] is True and answer["method"] == "email"
    assert answer["to"] == "m…@acme.example"
    assert mail.outbox[-1].to == ["member@acme.example"]
    code = emailed_code()
    row = OtpEmailCode.objects.get(user=member)
    assert code not in row.digest and len(row.digest) == 64
    assert (row.expires_at - row.sent_at).total_seconds() == 600


def test_send_again_within_a_minute_is_refused_with_when(people):
    member = people["member"]
    ok(member, "sendOtpCode")

    message = refused(member, "sendOtpCode")

    assert "less than 60 seconds ago" in message and "UTC" in message
    assert len(mail.outbox) == 1 and OtpEmailCode.objects.filter(user=member).count() == 1


def test_send_with_an_app_set_up_says_to_use_it_unless_by_email(people):
    member = people["member"]
    app_of(member)

    answer = ok(member, "sendOtpCode")
    assert (answer["sent"], answer["method"]) == (False, "totp") and "authenticator app" in answer["message"]
    assert not mail.outbox

    assert ok(member, "sendOtpCode", {"byEmail": True})["sent"] is True
    assert len(mail.outbox) == 1


def test_send_bad_input_and_refusals(people):
    message = refused(people["member"], "sendOtpCode", {"byEmail": "please"})
    assert "byEmail" in message and not mail.outbox
    # Over the message gateway: refused, nothing sent.
    from apps.catalogue.dispatch import call_tool
    from apps.catalogue.testing import context_for

    context = context_for(people["member"])
    context.door = "gateway"
    result = call_tool(context, "sendOtpCode", {})
    assert result["isError"] and "message gateway" in text_of(result) and not mail.outbox
    stranger = person_without("platform.view", email="no-platform@acme.example")
    with pytest.raises(ToolNotFound):
        call(stranger, "sendOtpCode")


# --- checkOtpCode --------------------------------------------------------------------------------


def test_check_an_emailed_code_once_records_a_step_up(people):
    member = people["member"]
    session = MemorySession("session-1")
    ok(member, "sendOtpCode", session=session)
    code = emailed_code()

    answer = ok(member, "checkOtpCode", {"code": f"{code[:3]} {code[3:]}"}, session=session)

    assert answer["verified"] is True and answer["method"] == "email" and answer["minutes"] == 15
    step_up = StepUp.objects.get(user=member)
    assert (step_up.credential, step_up.session_key) == ("pat:test", "session-1")
    assert otp.is_fresh(user=member, credential="pat:test", session_key="session-1")
    assert not otp.is_fresh(user=member, credential="pat:test", session_key="another")
    # Used once.
    assert "No code is waiting" in refused(member, "checkOtpCode", {"code": code}, session=session)


def test_check_the_apps_code_not_twice_in_its_window(people):
    member = people["member"]
    app = app_of(member)
    code = app.now()

    assert ok(member, "checkOtpCode", {"code": code})["method"] == "totp"
    assert "not right" in refused(member, "checkOtpCode", {"code": code})


def test_check_bad_input_writes_nothing(people):
    member = people["member"]
    ok(member, "sendOtpCode")

    for code in ("12345", "abcdef", "1234567"):
        assert "6 digits" in refused(member, "checkOtpCode", {"code": code})
    assert "code" in refused(member, "checkOtpCode", {})
    assert OtpFactor.objects.get(user=member).failures == 0
    assert not StepUp.objects.exists()


def test_check_without_any_code_waiting_says_how_to_get_one(people):
    message = refused(people["viewer"], "checkOtpCode", {"code": "123456"})
    assert "sendOtpCode" in message and "authenticator app" in message
    assert not OtpFactor.objects.filter(user=people["viewer"], failures__gt=0).exists()


def test_check_refused_over_the_gateway_and_without_the_permission(people):
    from apps.catalogue.dispatch import call_tool
    from apps.catalogue.testing import context_for

    member = people["member"]
    ok(member, "sendOtpCode")
    context = context_for(member)
    context.door = "gateway"
    result = call_tool(context, "checkOtpCode", {"code": emailed_code()})
    assert result["isError"] and "message gateway" in text_of(result)
    assert not StepUp.objects.exists()
    stranger = person_without("platform.view", email="no-platform-check@acme.example")
    with pytest.raises(ToolNotFound):
        call(stranger, "checkOtpCode", {"code": "123456"})


def test_five_wrong_codes_in_a_row_lock_the_codes_and_say_until_when(people):
    member = people["member"]
    ok(member, "sendOtpCode")
    code = emailed_code()
    wrong = "000000" if code != "000000" else "111111"

    for left in (4, 3, 2, 1):
        assert f"{left} more wrong codes" in refused(member, "checkOtpCode", {"code": wrong})
    # Counted although each call failed and its own writes were undone.
    assert OtpFactor.objects.get(user=member).failures == 4
    fifth = refused(member, "checkOtpCode", {"code": wrong})
    assert "locked until" in fifth and "UTC (15 minutes)" in fifth
    factor = OtpFactor.objects.get(user=member)
    assert factor.locked_until is not None

    # Even the right code is not checked while locked, and nothing is sent.
    locked = refused(member, "checkOtpCode", {"code": code})
    assert f"locked until {factor.locked_until:%Y-%m-%d %H:%M} UTC" in locked
    assert "locked until" in refused(member, "sendOtpCode", {"byEmail": True})
    assert not StepUp.objects.exists()


# --- the dispatcher: a fresh step-up before HIGH RISK tools ---------------------------------------


def test_high_risk_tools_need_a_fresh_step_up_where_the_workspace_says_so(people, step_up_on):
    owner = people["owner"]
    session = MemorySession("owner-session")
    arguments = {"email": "stepped-up@example.com", "role": "member"}

    message = refused(owner, "inviteWorkspaceUser", arguments, session=session, **CONFIRM)
    assert "requires a fresh step-up code" in message
    assert "checkOtpCode" in message and "sendOtpCode" in message
    assert not User.objects.filter(email="stepped-up@example.com").exists()
    # Tools that are not HIGH RISK run as before.
    ok(owner, "listRoles", session=session)

    ok(owner, "sendOtpCode", session=session)
    ok(owner, "checkOtpCode", {"code": emailed_code()}, session=session)
    ok(owner, "inviteWorkspaceUser", arguments, session=session, **CONFIRM)
    assert User.objects.filter(email="stepped-up@example.com").exists()

    # Another session of the same credential has no step-up of its own.
    other = {"email": "other-session@example.com", "role": "member"}
    assert "checkOtpCode" in refused(owner, "inviteWorkspaceUser", other, session=MemorySession(), **CONFIRM)


def test_without_the_setting_high_risk_tools_ask_only_their_confirmation(people):
    ok(
        people["owner"],
        "inviteWorkspaceUser",
        {"email": "no-step-up@example.com", "role": "member"},
        **CONFIRM,
    )


def test_the_gateway_cannot_step_up_so_high_risk_tools_are_refused_there(people, step_up_on):
    from apps.catalogue.dispatch import call_tool
    from apps.catalogue.testing import context_for

    context = context_for(people["owner"], **CONFIRM)
    context.door = "gateway"
    result = call_tool(context, "inviteWorkspaceUser", {"email": "gw@example.com", "role": "member"})
    assert result["isError"]
    assert "message gateway cannot take" in text_of(result) and "checkOtpCode" in text_of(result)
    assert not User.objects.filter(email="gw@example.com").exists()


def test_the_scenario_over_mcp(people, step_up_on):
    """An agent over MCP is refused a HIGH RISK tool, has the person's code checked, then runs it."""
    door = Door(pat_and_key("owner@acme.example"))
    door.initialize()
    arguments = {"email": "over-mcp@example.com", "role": "viewer"}

    first = door.call("inviteWorkspaceUser", arguments)["result"]
    assert first["isError"] and "checkOtpCode" in first["content"][0]["text"]

    app = app_of(people["owner"])
    checked = door.call("checkOtpCode", {"code": app.now()})["result"]
    assert checked["isError"] is False, checked
    assert checked["structuredContent"]["method"] == "totp"

    asked = door.call("inviteWorkspaceUser", arguments)["result"]
    assert "Confirmation required" in asked["content"][0]["text"]
    token = re.search(r'"confirmationToken": "([^"]+)"', asked["content"][0]["text"]).group(1)
    done = door.call("inviteWorkspaceUser", {**arguments, "confirmationToken": token})["result"]
    assert done["isError"] is False, done
    assert User.objects.get(email="over-mcp@example.com").role.key == "viewer"


# --- the pages -----------------------------------------------------------------------------------


def test_the_profile_page_sets_up_and_removes_the_app(people, acme_client):
    member = people["member"]
    acme_client.force_login(member)

    acme_client.post("/settings/authenticator/start/")
    page = acme_client.get("/settings/").content.decode()
    assert "<svg" in page and "otpauth://totp/" in page
    secret = re.search(r'data-testid="totp-secret">([A-Z2-7]+)<', page).group(1)
    assert OtpFactor.objects.get(user=member).totp_secret != secret  # encrypted at rest
    app = pyotp.TOTP(secret)

    near = {app.at(time.time() + offset) for offset in (-60, -30, 0, 30, 60)}
    wrong_code = next(code for code in ("000000", "111111", "222222", "333333") if code not in near)
    wrong = acme_client.post("/settings/authenticator/confirm/", {"code": wrong_code}, follow=True)
    assert "not right" in wrong.content.decode()
    factor = OtpFactor.objects.get(user=member)
    assert factor.totp_confirmed_at is None and factor.failures == 1

    acme_client.post("/settings/authenticator/confirm/", {"code": app.at(time.time() - 30)})
    assert otp.has_totp(member)
    assert 'data-testid="totp-on"' in acme_client.get("/settings/").content.decode()

    acme_client.post("/settings/authenticator/remove/", {"code": app.now()})
    assert not otp.has_totp(member)


def test_the_security_page_sets_the_workspace_setting_for_its_managers_only(people, acme_client, acme):
    from apps.tenancy.models import Workspace

    acme_client.force_login(people["member"])
    assert acme_client.get("/settings/security/").status_code == 403

    acme_client.force_login(people["owner"])
    assert acme_client.get("/settings/security/").status_code == 200
    answer = acme_client.post("/settings/security/", {"step_up_required": "on", "step_up_minutes": "30"})
    assert answer.status_code == 302
    saved = Workspace.objects.get(pk=acme.pk)
    assert (saved.step_up_required, saved.step_up_minutes) == (True, 30)

    bad = acme_client.post("/settings/security/", {"step_up_minutes": "999"})
    assert bad.status_code == 200 and Workspace.objects.get(pk=acme.pk).step_up_minutes == 30
