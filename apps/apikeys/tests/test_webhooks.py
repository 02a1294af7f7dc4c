"""Where webhooks may go, and how they are signed: the URL check, SPEC 5.3's signature, and the
overlap of a rolled signing secret."""

import hashlib
import hmac
from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings

from apps.apikeys import services, webhooks
from apps.apikeys.errors import UnsafeWebhookUrl
from apps.core import encryption

# --- response_url -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.215.14/hooks/atrium",
        "https://[2606:4700:4700::1111]/hook",
        "https://hooks.example.com/atrium?source=gateway",  # does not resolve here: checked at delivery
    ],
)
def test_https_to_a_public_host_is_accepted(url):
    assert webhooks.check_response_url(url).url == url


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://10.1.2.3/hook", "private"),
        ("https://172.16.0.1/hook", "private"),
        ("https://192.168.1.10/hook", "private"),
        ("https://100.100.100.200/latest", "non-public"),  # shared address space (a cloud's metadata)
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://[fe80::1]/hook", "link-local"),
        ("https://[fd00:ec2::254]/latest", "private"),
        ("https://[::ffff:10.0.0.1]/hook", "private"),
        ("https://0.0.0.0/hook", "non-public"),
        ("https://224.0.0.1/hook", "non-public"),
        ("https://metadata.google.internal/computeMetadata/v1/", "private host name"),
        ("https://printer.local/hook", "private host name"),
    ],
)
def test_private_link_local_and_metadata_addresses_are_refused(url, why):
    with pytest.raises(UnsafeWebhookUrl) as refused:
        webhooks.check_response_url(url)

    assert why in str(refused.value.message)
    assert refused.value.http_status == 422
    assert "response_url" in refused.value.details


@pytest.mark.parametrize(
    "url",
    [
        "http://93.184.215.14/hook",
        "http://hooks.example.com/hook",
        "ftp://93.184.215.14/",
        "//93.184.215.14/x",
        "https:///nohost",
        "https://93.184.215.14:99999/",
        "https://exa mple.com/",
        "javascript:alert(1)",
    ],
)
def test_anything_but_an_absolute_https_url_is_refused(url):
    with pytest.raises(UnsafeWebhookUrl):
        webhooks.check_response_url(url)


@override_settings(WEBHOOKS_ALLOW_LOOPBACK=True)
@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8765/hook", "http://localhost:9000/", "https://127.0.0.2/x", "http://[::1]:8000/"],
)
def test_loopback_is_accepted_when_development_allows_it(url):
    assert webhooks.check_response_url(url).addresses


@override_settings(WEBHOOKS_ALLOW_LOOPBACK=False)
@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8765/hook",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://2130706433/hook",  # 127.0.0.1 written as a number
        "https://[::ffff:127.0.0.1]/hook",
    ],
)
def test_loopback_is_refused_in_production(url):
    with pytest.raises(UnsafeWebhookUrl):
        webhooks.check_response_url(url)


def test_the_settings_of_development_and_tests_allow_loopback_and_production_does_not():
    from config.settings import base, local, test

    assert base.WEBHOOKS_ALLOW_LOOPBACK is False
    assert local.WEBHOOKS_ALLOW_LOOPBACK is True
    assert test.WEBHOOKS_ALLOW_LOOPBACK is True


def test_at_delivery_a_host_must_resolve():
    with pytest.raises(UnsafeWebhookUrl) as refused:
        webhooks.check_response_url("https://hooks.example.com/atrium", require_resolution=True)

    assert "does not resolve" in str(refused.value.message)
    assert webhooks.check_response_url("https://93.184.215.14/x", require_resolution=True).addresses == (
        "93.184.215.14",
    )


# --- signatures ---------------------------------------------------------------------------------


def test_the_signature_is_the_hex_hmac_sha256_of_the_raw_body():
    body = b'{"conversation_uuid":"c","status":"resolved","response":"Done."}'

    expected = hmac.new(b"atw_secret", body, hashlib.sha256).hexdigest()

    assert webhooks.signature("atw_secret", body) == expected
    assert webhooks.signature_matches("atw_secret", body, expected.upper())
    assert not webhooks.signature_matches("atw_other", body, expected)


@pytest.mark.django_db
def test_a_key_signs_with_its_secret(people):
    created = services.api_key_create(user=people["member"])
    body = b'{"status":"resolved"}'

    headers = services.webhook_signature_headers(key=created.key, body=body)

    assert headers == {"X-Signature": webhooks.signature(created.signing_secret, body)}


@pytest.mark.django_db
def test_a_rolled_secret_signs_beside_the_old_one_until_the_overlap_ends(people):
    member = people["member"]
    created = services.api_key_create(user=member)
    old = created.signing_secret
    rolled_at = datetime(2026, 4, 1, 9, tzinfo=UTC)
    body = b'{"status":"failed","error":"Something went wrong."}'

    key, new = services.signing_secret_roll(
        actor=member, key=created.key, overlap=timedelta(hours=24), now=rolled_at
    )

    assert new != old and new.startswith("atw_")
    during = services.webhook_signature_headers(key=key, body=body, now=rolled_at + timedelta(hours=23))
    assert during == {
        "X-Signature": webhooks.signature(new, body),
        "X-Signature-Previous": webhooks.signature(old, body),
    }
    after = services.webhook_signature_headers(
        key=key, body=body, now=rolled_at + timedelta(hours=24, seconds=1)
    )
    assert after == {"X-Signature": webhooks.signature(new, body)}
    assert services.signing_secrets(key=key, now=rolled_at + timedelta(hours=1)) == [new, old]


@pytest.mark.django_db
def test_a_roll_without_overlap_drops_the_old_secret_at_once(people):
    member = people["member"]
    created = services.api_key_create(user=member)

    key, new = services.signing_secret_roll(actor=member, key=created.key, overlap=timedelta(0))

    assert services.signing_secrets(key=key) == [new]
    assert key.previous_signing_secret_encrypted == ""


@pytest.mark.django_db
def test_rolling_twice_keeps_only_the_latest_previous_secret(people):
    member = people["member"]
    created = services.api_key_create(user=member)
    key, second = services.signing_secret_roll(actor=member, key=created.key)

    key, third = services.signing_secret_roll(actor=member, key=key)

    assert services.signing_secrets(key=key) == [third, second]


@pytest.mark.django_db
def test_the_default_overlap_comes_from_the_settings(people, settings):
    settings.SIGNING_SECRET_ROLL_OVERLAP_HOURS = 2
    member = people["member"]
    now = datetime(2026, 4, 1, 9, tzinfo=UTC)

    key, _new = services.signing_secret_roll(
        actor=member, key=services.api_key_create(user=member).key, now=now
    )

    assert key.previous_signing_secret_expires_at == now + timedelta(hours=2)


@pytest.mark.django_db
def test_only_the_owner_rolls_a_secret(people):
    from apps.core.errors import NotFound

    created = services.api_key_create(user=people["member"])

    with pytest.raises(NotFound):
        services.signing_secret_roll(actor=people["owner"], key=created.key)


# --- encryption at rest -------------------------------------------------------------------------


def test_secrets_are_encrypted_and_survive_a_key_rotation(settings):
    from cryptography.fernet import Fernet

    old_key, new_key = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    settings.ATRIUM_ENCRYPTION_KEYS = [old_key]
    stored = encryption.encrypt("atw_secret")
    assert "atw_secret" not in stored

    settings.ATRIUM_ENCRYPTION_KEYS = [new_key, old_key]
    assert encryption.decrypt(stored) == "atw_secret"
    rotated = encryption.reencrypt(stored)

    settings.ATRIUM_ENCRYPTION_KEYS = [new_key]
    assert encryption.decrypt(rotated) == "atw_secret"
    with pytest.raises(encryption.DecryptionFailed):
        encryption.decrypt(stored)
