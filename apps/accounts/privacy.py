"""Personal data of people and their credentials (docs/privacy.md)."""

from typing import Any

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib.admin.models import LogEntry
from django.contrib.sessions.models import Session
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from apps.accounts.models import (
    OtpEmailCode,
    OtpFactor,
    OtpRecoveryCode,
    PersonalAccessToken,
    Role,
    StepUp,
    User,
)
from apps.core import credentials, privacy


def user_export(user: User) -> dict[str, Any]:
    # Not the password hash: a secret, not information about the person.
    return {
        "id": user.pk,
        "email": user.email,
        "full_name": user.full_name,
        "role": user.role.key if user.role else None,
        "is_active": user.is_active,
        "time_zone": user.time_zone,
        "date_joined": user.date_joined,
        "last_login": user.last_login,
        "has_password": user.has_usable_password(),
    }


def last_owner(subject: privacy.Subject) -> str | None:
    user = subject.user
    if user is None or user.role is None or user.role.key != "owner":
        return None
    others = User.objects.filter(role__key="owner", is_active=True).exclude(pk=user.pk)
    if others.exists():
        return None
    return _(
        "This person is the workspace's last owner: give someone else the owner role first, "
        "or close the workspace."
    )


def sessions_of(subject: privacy.Subject) -> QuerySet:
    """Signed-in browser sessions: the user id is inside the encoded session data."""
    if subject.user is None:
        return Session.objects.none()
    user_id = str(subject.user.pk)
    keys = [
        session.session_key
        for session in Session.objects.iterator()
        if str(session.get_decoded().get("_auth_user_id")) == user_id
    ]
    return Session.objects.filter(session_key__in=keys)


# Django's own tables in the workspace schema that point at a person, django-axes' (failed
# sign-ins by address: apps.accounts.throttle; the access logs stay empty unless an installation
# turns them on), then ours (sorted).
privacy.register(LogEntry, user="user")
privacy.register(
    Session,
    find=sessions_of,
    export=lambda session: {"expire_date": session.expire_date},
    # Signing the person out is part of disabling them, before anything is erased.
    soft_delete=lambda sessions: sessions.delete()[0],
    credential=True,
)
privacy.register(AccessAttempt, email="username")
privacy.register(AccessFailureLog, email="username")
privacy.register(AccessLog, email="username")
privacy.register(
    PersonalAccessToken, user="user", exclude=["digest"], soft_delete=credentials.revoke_all, credential=True
)
# Step-up codes (apps.accounts.otp): never the secret or a code's digest; the app and the step-ups
# are ways in, revoked with the rest.
privacy.register(OtpEmailCode, user="user", exclude=["digest"])
privacy.register(
    OtpRecoveryCode,
    user="user",
    exclude=["digest"],
    soft_delete=lambda rows: rows.delete()[0],
    credential=True,
)
privacy.register(
    OtpFactor,
    user="user",
    exclude=["totp_secret"],
    soft_delete=lambda rows: rows.update(totp_secret="", totp_confirmed_at=None),
    credential=True,
)
privacy.register(StepUp, user="user", soft_delete=lambda rows: rows.delete()[0], credential=True)
privacy.not_personal(Role, reason="a named set of permissions; people point at roles, not the reverse")
privacy.register(User, email="email", export=user_export, soft_delete={"is_active": False}, veto=last_owner)
