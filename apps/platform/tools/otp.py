"""Step-up codes as tools: sendOtpCode e-mails a code, checkOtpCode checks it (or the code of the
person's authenticator app) and records a fresh step-up for this credential and session, which the
dispatcher asks for before HIGH RISK tools where the workspace's setting says so. The work is
apps.accounts.otp; the e-mail goes through the mail app's `send` (from the service's address)."""

import logging
from datetime import datetime
from typing import Annotated, Literal, cast

from pydantic import Field

from apps.accounts import otp
from apps.accounts.models import User
from apps.catalogue.dispatch import ToolContext
from apps.catalogue.registry import tool
from apps.catalogue.shapes import Out
from apps.core.errors import AppError, EmailNotSent
from apps.core.observability import describe_error
from apps.core.workspaces import brand
from apps.mail import api as mail
from apps.platform import errors
from apps.platform.permissions import PlatformPerm

logger = logging.getLogger(__name__)


class SentOut(Out):
    sent: bool = Field(description="true: a code was e-mailed; false: use the authenticator app")
    method: Literal["email", "totp"] = Field(description="Where the code to give checkOtpCode comes from")
    to: str = Field(description="The address the code went to, partly hidden; empty when none was sent")
    expires_at: datetime | None = Field(description="When the e-mailed code stops working")
    message: str


class CheckedOut(Out):
    verified: bool
    method: Literal["email", "totp", "recovery"] = Field(
        description="recovery: one of their recovery codes, used up"
    )
    step_up_until: datetime = Field(description="HIGH RISK tools run on this connection until then")
    minutes: int


def _on_gateway(ctx: ToolContext) -> None:
    if ctx.door == "gateway":
        raise errors.OtpNotOnGateway()


def _hidden(address: str) -> str:
    local, _at, domain = address.partition("@")
    return f"{local[:1]}…@{domain}" if domain else "…"


@tool("sendOtpCode", permission=PlatformPerm.VIEW, title="Send a step-up code")
def send_otp_code(
    ctx: ToolContext,
    *,
    by_email: Annotated[
        bool, Field(description="E-mail a code even though an authenticator app is set up")
    ] = False,
) -> SentOut:
    """E-mail the user a 6-digit step-up code (good for 10 minutes) to give checkOtpCode.

    With an authenticator app set up, says to use the app instead unless byEmail. At most one code
    a minute and five an hour; a new code replaces the earlier ones."""
    _on_gateway(ctx)
    user = cast(User, ctx.actor)
    if otp.has_totp(user) and not by_email:
        return SentOut(
            sent=False,
            method="totp",
            to="",
            expires_at=None,
            message=(
                "Ask the user for the 6-digit code their authenticator app shows now and give it to "
                "checkOtpCode; call sendOtpCode with byEmail: true if they cannot use the app."
            ),
        )
    issued = otp.email_code_issue(user=user)
    name = brand()
    minutes = otp.CODE_MINUTES
    notice = mail.Notice(
        to=[user.email],
        subject=f"Your {name} step-up code",
        text=(
            f"Your step-up code is {issued.code}\n\n"
            f"It works once, for {minutes} minutes (until {issued.expires_at:%H:%M} UTC). Give it to "
            "the assistant that asked for it, so that it can go on with an action that needs your "
            "confirmation.\n\n"
            "If you did not ask for a code, someone using your access may be trying such an action: "
            f"do not pass the code on, and tell an administrator of {name}."
        ),
    )
    try:
        mail.send([notice])
    except AppError:
        raise
    except Exception as error:
        # By its class: an SMTP refusal quotes the address it refused.
        logger.warning("step-up code for %s not e-mailed: %s", user.pk, describe_error(error))
        raise EmailNotSent(reason=type(error).__name__) from error
    return SentOut(
        sent=True,
        method="email",
        to=_hidden(user.email),
        expires_at=issued.expires_at,
        message=(
            f"A code was e-mailed; ask the user for it (it works for {minutes} minutes) and give it "
            "to checkOtpCode."
        ),
    )


@tool("checkOtpCode", permission=PlatformPerm.VIEW, title="Check a step-up code")
def check_otp_code(
    ctx: ToolContext,
    *,
    code: Annotated[
        str,
        Field(
            min_length=1,
            max_length=20,
            description="The 6 digits from the app or the e-mail, or one of the user's recovery codes",
        ),
    ],
) -> CheckedOut:
    """Check the user's 6-digit step-up code (authenticator app, or e-mailed by sendOtpCode).

    A right code lets HIGH RISK tools run on this connection for a while. Five wrong codes in a row
    lock codes for 15 minutes."""
    _on_gateway(ctx)
    verified = otp.check(
        user=cast(User, ctx.actor),
        code=code,
        credential=ctx.principal.credential,
        session_key=ctx.session.session_id,
    )
    return CheckedOut(
        verified=True,
        method=cast(Literal["email", "totp", "recovery"], verified.method),
        step_up_until=verified.until,
        minutes=verified.minutes,
    )
