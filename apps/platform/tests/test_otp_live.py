"""The scenario of step-up codes over real HTTP on loopback: a web process serving /api/mcp, an
agent with a personal access token and API key. With the workspace's setting on, a HIGH RISK tool
is refused until checkOtpCode took the person's code, then runs once confirmed; another MCP
session of the same credential has no step-up of its own."""

import re
import secrets
import time

import pyotp
import pytest
from django_tenants.utils import schema_context

from apps.core.testing import wait_for
from apps.mcp.testing import McpHttp, pat_and_key
from apps.mcp.tests.conftest import mcp_env, mcp_server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.live


def text(result: dict) -> str:
    return result["content"][0]["text"]


def test_a_high_risk_tool_runs_only_after_a_fresh_step_up_over_http(mcp_server, committed):  # noqa: F811
    from apps.accounts import otp
    from apps.accounts.models import OtpFactor, StepUp, User
    from apps.core import encryption
    from apps.tenancy.models import Workspace

    credentials = pat_and_key("owner@acme.example")
    with schema_context("acme"):
        from apps.accounts.models import Role

        colleague = User.objects.create_user(
            email=f"stepped-up-{secrets.token_hex(4)}@acme.example", role=Role.objects.get(key="member")
        )
        arguments = {"userId": colleague.pk, "role": "viewer"}
        owner = User.objects.get(email="owner@acme.example")
        OtpFactor.objects.filter(user=owner).delete()
        otp.totp_start(user=owner)
        app = pyotp.TOTP(encryption.decrypt(OtpFactor.objects.get(user=owner).totp_secret))
        otp.totp_confirm(user=owner, code=app.at(time.time() - 30))
    workspace = Workspace.objects.get(schema_name="acme")
    workspace.step_up_required = True
    workspace.save(update_fields=["step_up_required"])  # told to the web process (WORKSPACES)
    client = McpHttp(mcp_server.url(), credentials)
    other = McpHttp(mcp_server.url(), credentials)
    try:
        client.initialize()
        refused = wait_for(
            lambda: (
                (answer := client.result("updateUserRole", arguments))["isError"]
                and "checkOtpCode" in text(answer)
                and answer
            ),
            timeout=15,
            what="the setting to reach the web process",
        )
        assert "requires a fresh step-up code" in text(refused)

        checked = client.result("checkOtpCode", {"code": app.now()})
        assert checked["isError"] is False, checked
        assert checked["structuredContent"]["method"] == "totp"

        asked = client.result("updateUserRole", arguments)
        assert "Confirmation required" in text(asked), asked
        token = re.search(r'"confirmationToken": "([^"]+)"', text(asked)).group(1)
        done = client.result("updateUserRole", {**arguments, "confirmationToken": token})
        assert done["isError"] is False, done

        other.initialize()
        elsewhere = other.result("updateUserRole", {"userId": colleague.pk, "role": "member"})
        assert elsewhere["isError"] and "checkOtpCode" in text(elsewhere)
        with schema_context("acme"):
            assert User.objects.get(pk=colleague.pk).role.key == "viewer"
    finally:
        client.close()
        other.close()
        workspace.step_up_required = False
        workspace.save(update_fields=["step_up_required"])
        with schema_context("acme"):
            User.objects.filter(pk=colleague.pk).delete()
            StepUp.objects.filter(user=owner).delete()
            OtpFactor.objects.filter(user=owner).delete()
