"""Step-up codes: a person proves, again, that it is them before HIGH RISK tools run.

Two kinds of code, six digits each:
- their authenticator app's (TOTP, RFC 6238 through pyotp: 30-second steps, one step of drift
  either way), enrolled on their profile page and counted only once a first code confirmed it;
  the secret is kept Fernet-encrypted (apps.core.encryption), and a step whose code was taken is
  never taken again (`OtpFactor.totp_last_step`);
- a code e-mailed to them (sendOtpCode, apps.platform.tools.otp): only its keyed digest is kept,
  it expires after CODE_MINUTES, is used once, and at most one is sent a minute, MOST_PER_HOUR an
  hour; the newest one is the one that counts.

And RECOVERY_CODES recovery codes, for a person who lost their app: ten letters and digits each,
made when the app is set up (and anew on the profile page, given a code of the app), shown once,
kept as keyed digests, each taken once; one of them removes the app, or is a step-up like a code.

MOST_FAILURES wrong codes in a row lock both kinds for LOCK_MINUTES. A wrong code is counted even
though the call that gave it fails: the error carries the count as `stands` (errors.OtpCodeWrong),
run by the dispatcher after the call's own writes are undone, or by `failures_counted` on a page.

A right code through a credential and session (checkOtpCode) is a `StepUp`: with the workspace's
setting on (`Workspace.step_up_required`), the dispatcher runs HIGH RISK tools only there and
only until it expires (`Workspace.step_up_minutes`).
"""

import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pyotp
import segno
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from apps.accounts import errors
from apps.accounts.models import OtpEmailCode, OtpFactor, OtpRecoveryCode, StepUp, User
from apps.core import encryption
from apps.core.errors import AppError
from apps.core.workspaces import brand, current_workspace

DIGITS = 6
STEP_SECONDS = 30
CODE_MINUTES = 10
RESEND_SECONDS = 60
MOST_PER_HOUR = 5
MOST_FAILURES = 5
LOCK_MINUTES = 15
# The workspace's setting: how long a step-up may last.
LEAST_MINUTES, MOST_MINUTES = 1, 240


RECOVERY_CODES = 10
RECOVERY_LENGTH = 10
# Letters and digits nobody mistakes for one another (no 0/o, 1/l/i).
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"


def _typed(code: str) -> str:
    return "".join(char for char in str(code) if char not in " -\t").lower()


def is_recovery_code(code: str) -> bool:
    """Whether `code` is shaped as a recovery code (as printed, "abcde-fghjk", any case)."""
    typed = _typed(code)
    return len(typed) == RECOVERY_LENGTH and all(char in RECOVERY_ALPHABET for char in typed)


def normalised(code: str) -> str:
    """The six digits of a code as people type them ("123 456", "123-456"), or OtpCodeMalformed."""
    digits = _typed(code)
    if len(digits) != DIGITS or not digits.isascii() or not digits.isdigit():
        raise errors.OtpCodeMalformed()
    return digits


def factor_of(user: User, *, lock: bool = False) -> OtpFactor:
    factor, _created = OtpFactor.objects.get_or_create(user=user)
    if lock:
        factor = OtpFactor.objects.select_for_update().get(pk=factor.pk)
    return factor


def factor_if_any(user: User) -> OtpFactor | None:
    return OtpFactor.objects.filter(user=user).first()


def has_totp(user: User) -> bool:
    return (
        OtpFactor.objects.filter(user=user, totp_confirmed_at__isnull=False).exclude(totp_secret="").exists()
    )


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


# --- wrong codes and the lockout --------------------------------------------------------------------


def _refuse_if_locked(factor: OtpFactor) -> None:
    if factor.locked_until is not None and factor.locked_until > timezone.now():
        raise errors.OtpLocked(until=_stamp(factor.locked_until))


def count_failure(user_id: int) -> None:
    """One more wrong code in a row; the MOST_FAILURESth locks the codes for LOCK_MINUTES."""
    with transaction.atomic():
        factor = OtpFactor.objects.select_for_update().filter(user_id=user_id).first()
        if factor is None:
            factor = OtpFactor.objects.create(user_id=user_id)
        failures = factor.failures + 1
        if failures >= MOST_FAILURES:
            OtpFactor.objects.filter(pk=factor.pk).update(
                failures=0, locked_until=timezone.now() + timedelta(minutes=LOCK_MINUTES)
            )
        else:
            OtpFactor.objects.filter(pk=factor.pk).update(failures=F("failures") + 1)


def _wrong(factor: OtpFactor) -> errors.OtpCodeWrong | errors.OtpLocked:
    """The error of a wrong code, carrying its count."""
    user_id = factor.user_id
    left = MOST_FAILURES - factor.failures - 1
    error: errors.OtpCodeWrong | errors.OtpLocked
    if left <= 0:
        until = timezone.now() + timedelta(minutes=LOCK_MINUTES)
        error = errors.OtpLockedNow(most=MOST_FAILURES, until=_stamp(until), minutes=LOCK_MINUTES)
    else:
        error = errors.OtpCodeWrong(left=left, minutes=LOCK_MINUTES)
    error.stands = lambda: count_failure(user_id)
    return error


@contextmanager
def failures_counted() -> Iterator[None]:
    """For callers outside the dispatcher (pages): a wrong code's count is kept, then the error
    goes on. Use it outside any transaction that the error rolls back."""
    try:
        yield
    except AppError as error:
        keep_standing(error)
        raise


def keep_standing(error: Exception) -> None:
    """What a failed call's error says must stand (a wrong code counted), run once the call's
    own writes are undone: the dispatcher calls it for every AppError."""
    stands: Callable[[], None] | None = getattr(error, "stands", None)
    if stands is not None:
        stands()


# --- the authenticator app ---------------------------------------------------------------------------


def _totp(secret: str) -> pyotp.TOTP:
    return pyotp.TOTP(secret, digits=DIGITS, interval=STEP_SECONDS)


def _matching_step(secret: str, code: str, after: int | None) -> int | None:
    """The step (now, or one either side) whose code this is, if it is later than `after`."""
    totp = _totp(secret)
    now = int(time.time()) // STEP_SECONDS
    for step in (now, now - 1, now + 1):
        if after is not None and step <= after:
            continue
        if constant_time_compare(totp.generate_otp(step), code):
            return step
    return None


@dataclass(frozen=True)
class Enrolment:
    secret: str
    uri: str
    svg: str  # the QR code of `uri`, an <svg> element


def totp_start(*, user: User) -> Enrolment:
    """A new secret for the person's authenticator app, kept until a first code confirms it. One
    already confirmed is removed first (`totp_remove`, with a code)."""
    with transaction.atomic():
        factor = factor_of(user, lock=True)
        if factor.has_totp:
            raise errors.TotpAlreadyEnrolled()
        secret = pyotp.random_base32()
        factor.totp_secret = encryption.encrypt(secret)
        factor.totp_confirmed_at = None
        factor.totp_last_step = None
        factor.save(update_fields=["totp_secret", "totp_confirmed_at", "totp_last_step"])
    return enrolment_of(user) or _enrolment(user, secret)


def _enrolment(user: User, secret: str) -> Enrolment:
    uri = _totp(secret).provisioning_uri(name=user.email, issuer_name=brand())
    svg = segno.make(uri, error="m").svg_inline(scale=4, title="QR code of the authenticator app's set-up")
    return Enrolment(secret=secret, uri=uri, svg=svg)


def enrolment_of(user: User) -> Enrolment | None:
    """The set-up started and not yet confirmed (what the profile page shows), or None."""
    factor = OtpFactor.objects.filter(user=user).first()
    if factor is None or not factor.totp_secret or factor.totp_confirmed_at is not None:
        return None
    return _enrolment(user, encryption.decrypt(factor.totp_secret))


def totp_confirm(*, user: User, code: str) -> list[str]:
    """The first code of the app set up: from now on the app counts. Returns the person's new
    recovery codes, to show them once."""
    digits = normalised(code)
    with transaction.atomic():
        factor = factor_of(user, lock=True)
        _refuse_if_locked(factor)
        if factor.has_totp:
            raise errors.TotpAlreadyEnrolled()
        if not factor.totp_secret:
            raise errors.TotpNotStarted()
        step = _matching_step(encryption.decrypt(factor.totp_secret), digits, None)
        if step is None:
            raise _wrong(factor)
        factor.totp_confirmed_at = timezone.now()
        factor.totp_last_step = step
        factor.failures = 0
        factor.save(update_fields=["totp_confirmed_at", "totp_last_step", "failures"])
        return _recovery_codes_make(user)


def totp_remove(*, user: User, code: str) -> None:
    """Removes the person's authenticator app, given one of its codes or one of their recovery
    codes (who lost the app); its recovery codes go with it."""
    recovery = is_recovery_code(code)
    digits = "" if recovery else normalised(code)
    with transaction.atomic():
        factor = factor_of(user, lock=True)
        _refuse_if_locked(factor)
        if not factor.has_totp:
            raise errors.TotpNotEnrolled()
        if recovery:
            if not _recovery_code_taken(user, code):
                raise _wrong(factor)
        elif _matching_step(encryption.decrypt(factor.totp_secret), digits, factor.totp_last_step) is None:
            raise _wrong(factor)
        OtpRecoveryCode.objects.filter(user=user).delete()
        factor.totp_secret = ""
        factor.totp_confirmed_at = None
        factor.totp_last_step = None
        factor.failures = 0
        factor.save(update_fields=["totp_secret", "totp_confirmed_at", "totp_last_step", "failures"])


# --- recovery codes ---------------------------------------------------------------------------------


def _recovery_digest(user_id: int, code: str) -> str:
    return salted_hmac(
        "atrium.accounts.otp.recovery", f"{user_id}:{_typed(code)}", algorithm="sha256"
    ).hexdigest()


def _recovery_codes_make(user: User) -> list[str]:
    """RECOVERY_CODES new codes for the person (the earlier ones no longer work), as printed."""
    OtpRecoveryCode.objects.filter(user=user).delete()
    codes = []
    for _n in range(RECOVERY_CODES):
        raw = "".join(secrets.choice(RECOVERY_ALPHABET) for _i in range(RECOVERY_LENGTH))
        codes.append(f"{raw[:5]}-{raw[5:]}")
    OtpRecoveryCode.objects.bulk_create(
        [OtpRecoveryCode(user=user, digest=_recovery_digest(user.pk, code)) for code in codes]
    )
    return codes


def _recovery_code_taken(user: User, code: str) -> bool:
    """Whether `code` is one of the person's unused recovery codes; if so it is used now."""
    digest = _recovery_digest(user.pk, code)
    found = (
        OtpRecoveryCode.objects.select_for_update()
        .filter(user=user, used_at__isnull=True)
        .values_list("pk", "digest")
    )
    for pk, kept in found:
        if constant_time_compare(kept, digest):
            OtpRecoveryCode.objects.filter(pk=pk).update(used_at=timezone.now())
            return True
    return False


def recovery_codes_left(user: User) -> int:
    return OtpRecoveryCode.objects.filter(user=user, used_at__isnull=True).count()


def recovery_codes_renew(*, user: User, code: str) -> list[str]:
    """New recovery codes (the earlier ones stop working), given a code of the person's app."""
    digits = normalised(code)
    with transaction.atomic():
        factor = factor_of(user, lock=True)
        _refuse_if_locked(factor)
        if not factor.has_totp:
            raise errors.TotpNotEnrolled()
        step = _matching_step(encryption.decrypt(factor.totp_secret), digits, factor.totp_last_step)
        if step is None:
            raise _wrong(factor)
        factor.totp_last_step = step
        factor.failures = 0
        factor.save(update_fields=["totp_last_step", "failures"])
        return _recovery_codes_make(user)


# --- codes by e-mail ---------------------------------------------------------------------------------


def _digest(user_id: int, code: str) -> str:
    return salted_hmac("atrium.accounts.otp", f"{user_id}:{code}", algorithm="sha256").hexdigest()


@dataclass(frozen=True)
class IssuedCode:
    code: str  # to e-mail, never kept
    expires_at: datetime


def email_code_issue(*, user: User) -> IssuedCode:
    """A new code to e-mail (the caller sends it, in the same transaction): earlier ones no longer
    count. At most one a minute and MOST_PER_HOUR an hour; none while the codes are locked."""
    now = timezone.now()
    factor = factor_of(user, lock=True)
    _refuse_if_locked(factor)
    recent = list(
        OtpEmailCode.objects.filter(user=user, sent_at__gt=now - timedelta(hours=1))
        .order_by("-sent_at")
        .values_list("sent_at", flat=True)
    )
    if recent and recent[0] > now - timedelta(seconds=RESEND_SECONDS):
        raise errors.OtpResendTooSoon(
            seconds=RESEND_SECONDS, after=_stamp(recent[0] + timedelta(seconds=RESEND_SECONDS))
        )
    if len(recent) >= MOST_PER_HOUR:
        raise errors.OtpResendTooMany(most=MOST_PER_HOUR, after=_stamp(recent[-1] + timedelta(hours=1)))
    code = f"{secrets.randbelow(10**DIGITS):0{DIGITS}d}"
    row = OtpEmailCode.objects.create(
        user=user,
        digest=_digest(user.pk, code),
        sent_at=now,
        expires_at=now + timedelta(minutes=CODE_MINUTES),
    )
    return IssuedCode(code=code, expires_at=row.expires_at)


# --- checking a code, and the step-up it gives -----------------------------------------------------


@dataclass(frozen=True)
class Verified:
    method: str  # "totp" or "email"
    until: datetime
    minutes: int


def step_up_minutes() -> int:
    workspace = current_workspace()
    minutes = getattr(workspace, "step_up_minutes", 15) if workspace is not None else 15
    return max(LEAST_MINUTES, min(MOST_MINUTES, int(minutes)))


def check(*, user: User, code: str, credential: str, session_key: str) -> Verified:
    """Checks a code of the person's app or the e-mailed one; a right one is a fresh step-up for
    this credential and session; so is one of the person's recovery codes, used up. A wrong one
    is OtpCodeWrong (or OtpLockedNow), counted."""
    recovery = is_recovery_code(code)
    digits = "" if recovery else normalised(code)
    factor = factor_of(user, lock=True)
    _refuse_if_locked(factor)
    now = timezone.now()
    method = ""
    if recovery:
        if not _recovery_code_taken(user, code):
            raise _wrong(factor)
        method = "recovery"
    elif factor.has_totp:
        step = _matching_step(encryption.decrypt(factor.totp_secret), digits, factor.totp_last_step)
        if step is not None:
            factor.totp_last_step = step
            method = "totp"
    emailed = (
        OtpEmailCode.objects.select_for_update()
        .filter(user=user, used_at__isnull=True, expires_at__gt=now)
        .order_by("-sent_at")
        .first()
    )
    if not method and not recovery and emailed is not None:
        newest = (
            OtpEmailCode.objects.filter(user=user).order_by("-sent_at").values_list("pk", flat=True).first()
        )
        if newest == emailed.pk and constant_time_compare(emailed.digest, _digest(user.pk, digits)):
            emailed.used_at = now
            emailed.save(update_fields=["used_at"])
            method = "email"
    if not method:
        if not factor.has_totp and emailed is None:
            raise errors.NoOtpCodeWaiting()
        raise _wrong(factor)
    factor.failures = 0
    factor.locked_until = None
    factor.save(update_fields=["totp_last_step", "failures", "locked_until"])
    minutes = step_up_minutes()
    until = now + timedelta(minutes=minutes)
    StepUp.objects.filter(user=user, expires_at__lte=now).delete()
    StepUp.objects.create(
        user=user,
        credential=credential[:200],
        session_key=session_key[:200],
        method=method,
        created_at=now,
        expires_at=until,
    )
    return Verified(method=method, until=until, minutes=minutes)


def step_up_required() -> bool:
    """The workspace asks a fresh step-up before HIGH RISK tools."""
    workspace = current_workspace()
    return bool(getattr(workspace, "step_up_required", False)) if workspace is not None else False


def is_fresh(*, user: Any, credential: str, session_key: str) -> bool:
    """A step-up of this person, credential and session that has not expired."""
    if not getattr(user, "pk", None):
        return False
    return StepUp.objects.filter(
        user_id=user.pk,
        credential=credential[:200],
        session_key=session_key[:200],
        expires_at__gt=timezone.now(),
    ).exists()


# --- the sweep -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Swept:
    codes: int
    step_ups: int
    locks: int


def sweep(*, now: datetime | None = None) -> Swept:
    """Hourly (apps.accounts.tasks.sweep_step_up_codes): deletes the e-mailed codes sent more than
    an hour ago (expired after CODE_MINUTES, and no longer counted against MOST_PER_HOUR), the
    step-ups that have expired, and the lockouts that have ended (their factor's wrong codes in
    a row start again from none). Nothing that still counts for anything is touched."""
    now = now or timezone.now()
    codes, _kinds = OtpEmailCode.objects.filter(
        sent_at__lte=now - timedelta(hours=1), expires_at__lte=now
    ).delete()
    step_ups, _kinds = StepUp.objects.filter(expires_at__lte=now).delete()
    locks = OtpFactor.objects.filter(locked_until__lte=now).update(locked_until=None, failures=0)
    return Swept(codes=codes, step_ups=step_ups, locks=locks)
