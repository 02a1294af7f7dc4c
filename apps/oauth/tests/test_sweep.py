"""The periodic clean-up: clients that never obtained a token, expired tokens and codes."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from django_tenants.utils import schema_context
from oauth2_provider.models import get_access_token_model, get_application_model, get_grant_model

from apps.oauth import services, tasks
from apps.oauth.models import Connection, SpentCode


def make_client(*, hours_old: float, source: str = "dcr"):
    application = get_application_model().objects.create(
        name=f"client {hours_old}",
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris="http://127.0.0.1:9/cb",
        registration_source=source,
    )
    get_application_model().objects.filter(pk=application.pk).update(
        created=timezone.now() - timedelta(hours=hours_old)
    )
    return application


def exists(application) -> bool:
    return get_application_model().objects.filter(pk=application.pk).exists()


def test_clients_that_never_obtained_a_token_are_removed_after_a_day(acme, people):
    stale = make_client(hours_old=25)
    young = make_client(hours_old=2)
    used = make_client(hours_old=300)
    Connection.objects.create(user=people["member"], application=used, scope="mcp")
    disconnected = make_client(hours_old=300)
    Connection.objects.create(user=people["member"], application=disconnected, revoked_at=timezone.now())
    manual = make_client(hours_old=300, source="manual")

    result = services.oauth_sweep()

    assert result["clients"] == 1
    assert not exists(stale)
    assert all(exists(kept) for kept in (young, used, disconnected, manual))


def test_expired_tokens_codes_and_old_spent_codes_are_removed(acme, people):
    application = make_client(hours_old=300)
    Connection.objects.create(user=people["member"], application=application)
    past = timezone.now() - timedelta(minutes=5)
    expired = get_access_token_model().objects.create(
        user=people["member"], application=application, token_checksum="a" * 64, expires=past, scope="mcp"
    )
    live = get_access_token_model().objects.create(
        user=people["member"],
        application=application,
        token_checksum="b" * 64,
        expires=timezone.now() + timedelta(hours=1),
        scope="mcp",
    )
    grant = get_grant_model().objects.create(
        user=people["member"], application=application, code="c" * 30, expires=past, redirect_uri="x"
    )
    old_spent = SpentCode.objects.create(digest="d" * 64, application=application)
    SpentCode.objects.filter(pk=old_spent.pk).update(created_at=timezone.now() - timedelta(days=2))
    recent_spent = SpentCode.objects.create(digest="e" * 64, application=application)

    services.oauth_sweep()

    assert not get_access_token_model().objects.filter(pk=expired.pk).exists()
    assert get_access_token_model().objects.filter(pk=live.pk).exists()
    assert not get_grant_model().objects.filter(pk=grant.pk).exists()
    assert not SpentCode.objects.filter(pk=old_spent.pk).exists()
    assert SpentCode.objects.filter(pk=recent_spent.pk).exists()


def test_the_sweep_visits_every_workspace_and_is_scheduled(committed):
    with schema_context("globex"):
        stale = make_client(hours_old=48)
    try:
        assert tasks.sweep_oauth() == 0
        with schema_context("globex"):
            assert not exists(stale)
    finally:
        with schema_context("globex"):
            get_application_model().objects.filter(pk=stale.pk).delete()

    entry = settings.CELERY_BEAT_SCHEDULE["sweep-oauth"]
    assert entry["task"] == "apps.oauth.tasks.sweep_oauth"
    assert tasks.sweep_oauth.name == entry["task"]


@pytest.mark.django_db
def test_the_unused_client_age_is_a_setting(acme, settings):
    settings.OAUTH_UNUSED_CLIENT_HOURS = 1
    stale = make_client(hours_old=2)

    services.oauth_sweep()

    assert not exists(stale)
