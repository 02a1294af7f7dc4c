"""Step-up codes, the rest: ten recovery codes shown once when the authenticator app is set up
(only their keyed digests kept), each taken once, to remove a lost app on the profile page or as
a step-up code; made anew on the profile page given a code of the app; and the hourly sweep of
the e-mailed codes and step-ups that no longer count for anything, with its beat entry."""

import re
import time
from datetime import timedelta

import pyotp
import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone

from apps.accounts import otp, tasks
from apps.accounts.models import OtpEmailCode, OtpFactor, OtpRecoveryCode, StepUp
from apps.catalogue.dispatch import MemorySession
from apps.catalogue.testing import ok, refused

pytestmark = pytest.mark.django_db


def set_up(client, user) -> tuple[pyotp.TOTP, list[str]]:  # type: ignore[no-untyped-def]
    """The profile page's set-up: the app's secret read off the page, confirmed by its code; the
    recovery codes the answer shows."""
    client.force_login(user)
    client.post("/settings/authenticator/start/")
    page = client.get("/settings/").content.decode()
    app = pyotp.TOTP(re.search(r'data-testid="totp-secret">([A-Z2-7]+)<', page).group(1))
    answer = client.post("/settings/authenticator/confirm/", {"code": app.at(time.time() - 30)})
    assert answer.status_code == 200 and "no-store" in answer["Cache-Control"]
    return app, re.findall(r"<code>([a-z2-9]{5}-[a-z2-9]{5})</code>", answer.content.decode())


def test_setting_up_the_app_shows_ten_recovery_codes_once_kept_only_as_digests(people, acme_client):
    member = people["member"]

    _app, codes = set_up(acme_client, member)

    assert len(codes) == len(set(codes)) == otp.RECOVERY_CODES
    kept = list(OtpRecoveryCode.objects.filter(user=member).values_list("digest", flat=True))
    assert len(kept) == 10 and not {code.replace("-", "") for code in codes} & set(kept)
    assert not any(code in digest for code in codes for digest in kept)
    profile = acme_client.get("/settings/").content.decode()
    assert "10 recovery codes left" in profile and codes[0] not in profile


def test_a_recovery_code_removes_a_lost_app_once(people, acme_client):
    member = people["member"]
    _app, codes = set_up(acme_client, member)

    acme_client.post("/settings/authenticator/remove/", {"code": codes[3].upper().replace("-", " ")})

    assert not otp.has_totp(member) and not OtpRecoveryCode.objects.filter(user=member).exists()
    # Set up again: new codes, and the old ones count for nothing.
    _app, fresh = set_up(acme_client, member)
    assert not set(fresh) & set(codes)
    wrong = acme_client.post("/settings/authenticator/remove/", {"code": codes[4]}, follow=True)
    assert "not right" in wrong.content.decode() and otp.has_totp(member)
    assert OtpFactor.objects.get(user=member).failures == 1


def test_a_recovery_code_is_a_step_up_once(people, acme_client):
    member = people["member"]
    _app, codes = set_up(acme_client, member)
    session = MemorySession("session-r")

    answer = ok(member, "checkOtpCode", {"code": codes[0]}, session=session)

    assert answer["verified"] is True and answer["method"] == "recovery"
    assert otp.is_fresh(user=member, credential="pat:test", session_key="session-r")
    assert "not right" in refused(member, "checkOtpCode", {"code": codes[0]}, session=session)
    assert otp.recovery_codes_left(member) == 9
    # Someone else's code is no code of theirs.
    assert "not right" in refused(people["admin"], "checkOtpCode", {"code": codes[1]})
    assert otp.recovery_codes_left(member) == 9


def test_new_recovery_codes_need_a_code_of_the_app(people, acme_client):
    member = people["member"]
    app, codes = set_up(acme_client, member)

    wrong = acme_client.post("/settings/authenticator/recovery-codes/", {"code": codes[0]}, follow=True)
    assert "6 digits" in wrong.content.decode()
    answer = acme_client.post("/settings/authenticator/recovery-codes/", {"code": app.now()})

    assert answer.status_code == 200
    renewed = re.findall(r"<code>([a-z2-9]{5}-[a-z2-9]{5})</code>", answer.content.decode())
    assert len(renewed) == 10 and not set(renewed) & set(codes)
    assert "not right" in refused(member, "checkOtpCode", {"code": codes[2]})
    assert ok(member, "checkOtpCode", {"code": renewed[2]})["method"] == "recovery"
    # Without an app, nothing to renew.
    acme_client.force_login(people["viewer"])
    none = acme_client.post("/settings/authenticator/recovery-codes/", {"code": "123456"}, follow=True)
    assert "No authenticator app" in none.content.decode()
    assert not OtpRecoveryCode.objects.filter(user=people["viewer"]).exists()


def test_a_code_of_neither_shape_is_refused_unchecked(people, acme_client):
    member = people["member"]
    set_up(acme_client, member)

    for code in ("abcde-fghj0", "12345", "abcdefghijk"):
        assert "recovery codes" in refused(member, "checkOtpCode", {"code": code})
    assert OtpFactor.objects.get(user=member).failures == 0 and otp.recovery_codes_left(member) == 10


# --- the sweep ------------------------------------------------------------------------------------


def test_the_sweep_deletes_what_no_longer_counts_and_keeps_the_rest(people):
    member, admin = people["member"], people["admin"]
    now = timezone.now()
    old = OtpEmailCode.objects.create(
        user=member,
        digest="x",
        sent_at=now - timedelta(hours=2),
        expires_at=now - timedelta(hours=2) + timedelta(minutes=10),
    )
    recent = OtpEmailCode.objects.create(
        user=member, digest="y", sent_at=now - timedelta(minutes=30), expires_at=now - timedelta(minutes=20)
    )
    live = OtpEmailCode.objects.create(
        user=admin, digest="z", sent_at=now, expires_at=now + timedelta(minutes=10)
    )
    gone = StepUp.objects.create(
        user=member, credential="pat:1", session_key="s", method="totp", expires_at=now - timedelta(seconds=1)
    )
    fresh = StepUp.objects.create(
        user=member, credential="pat:1", session_key="t", method="totp", expires_at=now + timedelta(minutes=5)
    )
    ended = OtpFactor.objects.create(user=member, failures=2, locked_until=now - timedelta(minutes=1))
    locked = OtpFactor.objects.create(user=admin, failures=0, locked_until=now + timedelta(minutes=5))

    swept = otp.sweep()

    assert (swept.codes, swept.step_ups, swept.locks) == (1, 1, 1)
    assert set(OtpEmailCode.objects.values_list("pk", flat=True)) == {recent.pk, live.pk}
    assert set(StepUp.objects.values_list("pk", flat=True)) == {fresh.pk}
    ended.refresh_from_db()
    locked.refresh_from_db()
    assert (ended.locked_until, ended.failures) == (None, 0) and locked.locked_until is not None
    assert not StepUp.objects.filter(pk=gone.pk).exists()
    assert not OtpEmailCode.objects.filter(pk=old.pk).exists()
    # The code sent within the hour still counts: another is sent, the hour's count goes on.
    mail.outbox.clear()
    assert ok(member, "sendOtpCode")["sent"] is True and len(mail.outbox) == 1
    assert OtpEmailCode.objects.filter(user=member).count() == 2


def test_the_sweep_runs_in_every_workspace_and_is_scheduled(committed):
    from django_tenants.utils import schema_context

    from apps.accounts.models import User

    with schema_context("globex"):
        user = User.objects.order_by("pk").first()
        assert user is not None
        now = timezone.now()
        stale = OtpEmailCode.objects.create(
            user=user, digest="q", sent_at=now - timedelta(hours=3), expires_at=now - timedelta(hours=3)
        )
    try:
        assert tasks.sweep_step_up_codes() == 0
        with schema_context("globex"):
            assert not OtpEmailCode.objects.filter(pk=stale.pk).exists()
    finally:
        with schema_context("globex"):
            OtpEmailCode.objects.filter(pk=stale.pk).delete()

    entry = settings.CELERY_BEAT_SCHEDULE["sweep-step-up-codes"]
    assert entry["task"] == "apps.accounts.tasks.sweep_step_up_codes" == tasks.sweep_step_up_codes.name
