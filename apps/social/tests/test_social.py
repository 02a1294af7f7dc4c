"""Social posting against real HTTP servers on loopback speaking Mastodon's REST API and Bluesky's
XRPC: accounts connected (admins only, the credential encrypted), posts now and at a time, the
beat task delivering what is due, retries on 5xx/429 without posting twice, a clear failure on
4xx, the 300-grapheme limit checked before anything leaves, and the settings page."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from apps.core.errors import FieldInvalid, Forbidden
from apps.social import api, services, tasks
from apps.social.errors import (
    NoSocialAccount,
    SocialAccountNotFound,
    SocialPostNotChangeable,
    SocialProviderRefused,
    SocialServerRefused,
    SocialTextEmpty,
    SocialTextTooLong,
    SocialTimePast,
)
from apps.social.models import SocialAccount, SocialPost
from apps.social.tests import servers

State = SocialPost.State


@pytest.fixture
def mastodon():
    with servers.mastodon() as served:
        yield served


@pytest.fixture
def bluesky():
    with servers.bluesky() as served:
        yield served


def connect_mastodon(people, served) -> SocialAccount:
    return services.account_connect(
        actor=people["admin"], network="mastodon", server=served.url, handle="", secret=servers.MASTODON_TOKEN
    )


def connect_bluesky(people, served) -> SocialAccount:
    return services.account_connect(
        actor=people["admin"],
        network="bluesky",
        server=served.url,
        handle=servers.BLUESKY_HANDLE,
        secret=servers.BLUESKY_PASSWORD,
    )


def test_an_admin_connects_mastodon_with_the_token_checked_and_kept_encrypted(people, mastodon):
    account = connect_mastodon(people, mastodon)

    assert (account.handle, account.remote_id) == ("@acme@127.0.0.1", "109000000000000001")
    assert [path for _m, path, _h, _b in mastodon.requests] == [
        "/api/v1/apps/verify_credentials",
        "/api/v1/accounts/verify_credentials",
    ]
    with connection.cursor() as cursor:
        cursor.execute("SELECT credential_encrypted FROM social_socialaccount WHERE id = %s", [account.pk])
        stored = cursor.fetchone()[0]
    assert servers.MASTODON_TOKEN not in stored and stored
    assert [a.pk for a in api.accounts()] == [account.pk]


def test_connecting_is_refused_to_a_member_a_bad_token_and_a_public_http_server(people, mastodon):
    with pytest.raises(Forbidden):
        services.account_connect(
            actor=people["member"], network="mastodon", server=mastodon.url, handle="", secret="x"
        )
    with pytest.raises(SocialProviderRefused, match="HTTP 401"):
        services.account_connect(
            actor=people["admin"], network="mastodon", server=mastodon.url, handle="", secret="wrong"
        )
    with pytest.raises(SocialServerRefused, match="https"):
        services.account_connect(
            actor=people["admin"], network="mastodon", server="http://93.184.215.14", handle="", secret="x"
        )
    with pytest.raises(FieldInvalid):
        services.account_connect(
            actor=people["admin"], network="x", server=mastodon.url, handle="", secret="x"
        )
    assert not SocialAccount.objects.exists()


def test_loopback_servers_are_reached_only_where_the_settings_allow_it(people, mastodon):
    assert settings.WEBHOOKS_ALLOW_LOOPBACK is True
    with (
        override_settings(WEBHOOKS_ALLOW_LOOPBACK=False),
        pytest.raises(SocialServerRefused, match="loopback"),
    ):
        connect_mastodon(people, mastodon)
    assert mastodon.requests == []


def test_with_no_account_connected_posting_says_so_plainly(people):
    with pytest.raises(NoSocialAccount, match=r"No social account is connected.*Settings → Social accounts"):
        api.post(actor=people["admin"], account_id=1, text="Hello")
    with pytest.raises(NoSocialAccount):
        api.accounts_or_refusal()


def test_a_mastodon_post_scheduled_and_delivered_by_the_beat_task(people, mastodon):
    account = connect_mastodon(people, mastodon)
    at = timezone.now() + timedelta(hours=2)
    post = api.post(
        actor=people["member"],
        account_id=account.pk,
        text="Our spring release is out",
        links=["https://acme.example/blog/spring/"],
        at=at,
        source="blog:7",
    )
    assert post.state == State.SCHEDULED and mastodon.posts() == []

    assert services.deliver_due() == 0  # not yet
    assert "social-deliver-due" in settings.CELERY_BEAT_SCHEDULE
    assert settings.CELERY_BEAT_SCHEDULE["social-deliver-due"]["task"] == "apps.social.tasks.deliver_due"
    assert services.deliver_due(now=at + timedelta(seconds=20)) == 1

    post.refresh_from_db()
    [status] = mastodon.posts()
    assert status["text"] == "Our spring release is out\n\nhttps://acme.example/blog/spring/"
    assert (post.state, post.remote_id, post.remote_url) == (State.SENT, status["id"], status["url"])
    sent = [h for m, p, h, _b in mastodon.requests if p == "/api/v1/statuses"]
    assert sent[0]["Idempotency-Key"] == str(post.idempotency_key)
    assert [p.pk for p in api.posts(source="blog:")] == [post.pk]


def test_the_beat_task_delivers_in_every_workspace(people, mastodon):
    account = connect_mastodon(people, mastodon)
    post = services.post_create(actor=people["admin"], account=account, text="Now")
    assert tasks.deliver_due() == 0  # failures
    post.refresh_from_db()
    assert post.state == State.SENT and len(mastodon.posts()) == 1


def test_a_5xx_and_a_429_are_retried_later_and_posted_once(people, mastodon):
    account = connect_mastodon(people, mastodon)
    mastodon.fail = [(503, {"error": "busy"}), (429, {"error": "Too many requests"})]
    post = api.post(actor=people["admin"], account_id=account.pk, text="Hello")

    assert (post.state, post.attempts) == (State.SCHEDULED, 1)
    assert "unavailable" in post.reason and post.next_try_at > timezone.now()
    assert services.deliver_due() == 0  # its next try is not due yet
    assert services.deliver_due(now=post.next_try_at + timedelta(seconds=1)) == 0  # the 429
    post.refresh_from_db()
    assert (post.state, post.attempts, post.reason) == (State.SCHEDULED, 2, post.reason)
    assert "429" in post.reason
    services.deliver_due(now=post.next_try_at + timedelta(seconds=1))
    post.refresh_from_db()
    assert (post.state, post.attempts, post.reason) == (State.SENT, 3, "")
    assert len(mastodon.posts()) == 1


def test_a_post_a_stopped_worker_left_sending_is_sent_again_without_posting_twice(people, mastodon):
    account = connect_mastodon(people, mastodon)
    post = api.post(actor=people["admin"], account_id=account.pk, text="Once")
    # The network had it, but the worker stopped before it wrote the answer down.
    SocialPost.objects.filter(pk=post.pk).update(
        state=State.SENDING, claimed_at=timezone.now() - timedelta(minutes=30), remote_id=""
    )
    assert services.deliver_due() == 1
    post.refresh_from_db()
    assert post.state == State.SENT and post.remote_id
    assert len(mastodon.posts()) == 1
    # One being sent just now is nobody else's.
    SocialPost.objects.filter(pk=post.pk).update(state=State.SENDING, claimed_at=timezone.now())
    assert services.deliver_due() == 0


def test_a_4xx_fails_at_once_with_the_networks_reason(people, mastodon):
    account = connect_mastodon(people, mastodon)
    mastodon.fail = [(422, {"error": "Validation failed: Text character limit of 500 exceeded"})]
    post = api.post(actor=people["admin"], account_id=account.pk, text="Hello")
    assert (post.state, post.attempts) == (State.FAILED, 1)
    assert "HTTP 422" in post.reason and "character limit" in post.reason
    assert services.deliver_due(now=timezone.now() + timedelta(days=1)) == 0


def test_too_many_tries_fail_the_post(people, mastodon):
    account = connect_mastodon(people, mastodon)
    mastodon.fail = [(502, {"error": "bad gateway"})] * services.MAX_ATTEMPTS
    post = api.post(actor=people["admin"], account_id=account.pk, text="Hello")
    for _try in range(services.MAX_ATTEMPTS - 1):
        services.deliver_due(now=timezone.now() + timedelta(days=1))
    post.refresh_from_db()
    assert (post.state, post.attempts) == (State.FAILED, services.MAX_ATTEMPTS)
    assert mastodon.posts() == []


def test_bad_posts_are_refused_before_anything_is_written_or_sent(people, mastodon):
    account = connect_mastodon(people, mastodon)
    before = len(mastodon.requests)
    with pytest.raises(SocialTextEmpty):
        api.post(actor=people["admin"], account_id=account.pk, text="  ")
    with pytest.raises(SocialTextTooLong, match="501 characters long, and Mastodon takes at most 500"):
        api.post(actor=people["admin"], account_id=account.pk, text="x" * 501)
    with pytest.raises(SocialTimePast):
        api.post(
            actor=people["admin"], account_id=account.pk, text="x", at=timezone.now() - timedelta(hours=1)
        )
    with pytest.raises(FieldInvalid):
        api.post(actor=people["admin"], account_id=account.pk, text="x", links=["javascript:alert(1)"])
    with pytest.raises(SocialAccountNotFound):
        api.post(actor=people["admin"], account_id=account.pk + 100, text="x")
    assert not SocialPost.objects.exists() and len(mastodon.requests) == before
    # A URL counts as 23 characters, as Mastodon counts it.
    assert api.check(account_id=account.pk, text="x" * 470, links=["https://acme.example/" + "a" * 200])


def test_bluesky_posts_with_link_facets_and_300_graphemes_at_most(people, bluesky):
    account = connect_bluesky(people, bluesky)
    assert (account.handle, account.remote_id) == (servers.BLUESKY_HANDLE, servers.BLUESKY_DID)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one grapheme, five code points
    before = len(bluesky.requests)
    with pytest.raises(SocialTextTooLong, match="301 graphemes long, and Bluesky takes at most 300"):
        api.post(actor=people["admin"], account_id=account.pk, text=family * 301)
    assert len(bluesky.requests) == before and not SocialPost.objects.exists()

    post = api.post(
        actor=people["admin"],
        account_id=account.pk,
        text=family * 150 + " Read",
        links=["https://acme.example/b/"],
    )
    assert post.state == State.SENT, post.reason
    [record] = bluesky.posts()
    text = record["text"]
    [facet] = record["facets"]
    start, end = facet["index"]["byteStart"], facet["index"]["byteEnd"]
    assert text.encode()[start:end] == b"https://acme.example/b/"
    assert facet["features"][0]["uri"] == "https://acme.example/b/"
    assert record["repo"] == servers.BLUESKY_DID and record["collection"] == "app.bsky.feed.post"
    rkey = post.remote_id.rsplit("/", 1)[1]
    assert post.remote_url == f"https://bsky.app/profile/{servers.BLUESKY_HANDLE}/post/{rkey}"


def test_bluesky_retried_after_a_lost_answer_keeps_one_record(people, bluesky):
    account = connect_bluesky(people, bluesky)
    post = api.post(actor=people["admin"], account_id=account.pk, text="Once on Bluesky")
    assert post.state == State.SENT
    SocialPost.objects.filter(pk=post.pk).update(
        state=State.SENDING, claimed_at=timezone.now() - timedelta(hours=1)
    )
    services.deliver_due()
    post.refresh_from_db()
    assert post.state == State.SENT and len(bluesky.posts()) == 1


def test_bluesky_refuses_a_wrong_app_password(people, bluesky):
    with pytest.raises(SocialProviderRefused, match="Invalid identifier or password"):
        services.account_connect(
            actor=people["admin"],
            network="bluesky",
            server=bluesky.url,
            handle=servers.BLUESKY_HANDLE,
            secret="no",
        )
    assert not SocialAccount.objects.exists()


def test_a_scheduled_post_is_changed_or_cancelled_until_it_is_out(people, mastodon):
    account = connect_mastodon(people, mastodon)
    post = api.post(
        actor=people["admin"], account_id=account.pk, text="Soon", at=timezone.now() + timedelta(days=1)
    )
    later = timezone.now() + timedelta(days=2)
    changed = api.update(post.pk, text="Later", at=later)
    assert (changed.text, changed.scheduled_at, changed.next_try_at) == ("Later", later, later)
    with pytest.raises(SocialTextTooLong):
        api.update(post.pk, text="x" * 600)
    assert api.get_post(post.pk).text == "Later"
    assert api.cancel(post.pk).state == State.CANCELLED
    with pytest.raises(SocialPostNotChangeable, match="cancelled"):
        api.update(post.pk, text="Again")
    assert services.deliver_due(now=later + timedelta(minutes=1)) == 0 and mastodon.posts() == []


def test_disconnecting_forgets_the_credential_and_fails_what_was_scheduled(people, mastodon):
    account = connect_mastodon(people, mastodon)
    post = api.post(
        actor=people["admin"], account_id=account.pk, text="Soon", at=timezone.now() + timedelta(hours=1)
    )
    with pytest.raises(Forbidden):
        services.account_disconnect(actor=people["member"], account=account)
    assert services.account_disconnect(actor=people["admin"], account=account) == 1
    account.refresh_from_db()
    post.refresh_from_db()
    assert account.credential_encrypted == "" and not account.connected
    assert post.state == State.FAILED and "disconnected" in post.reason
    with pytest.raises(NoSocialAccount):
        api.account(account.pk)
    # Connected again: a new row, the old one keeps its posts.
    assert connect_mastodon(people, mastodon).pk != account.pk


def test_the_settings_page_connects_and_disconnects_for_admins_alone(people, mastodon, acme_client):
    acme_client.force_login(people["member"])
    page = acme_client.get("/settings/social/")
    assert page.status_code == 200 and b"No social account is connected" in page.content
    assert b'name="secret"' not in page.content
    form = {"network": "mastodon", "server": mastodon.url, "handle": "", "secret": servers.MASTODON_TOKEN}
    assert acme_client.post("/settings/social/", form).status_code == 403
    assert not SocialAccount.objects.exists()

    acme_client.force_login(people["admin"])
    refused = acme_client.post("/settings/social/", {**form, "secret": "wrong"})
    assert refused.status_code == 400 and b"HTTP 401" in refused.content
    assert acme_client.post("/settings/social/", form).status_code == 302
    account = SocialAccount.objects.get()
    page = acme_client.get("/settings/social/")
    assert b"@acme@127.0.0.1" in page.content and servers.MASTODON_TOKEN.encode() not in page.content

    acme_client.force_login(people["member"])
    assert acme_client.post(f"/settings/social/{account.pk}/disconnect/").status_code == 403
    acme_client.force_login(people["admin"])
    assert acme_client.post(f"/settings/social/{account.pk}/disconnect/").status_code == 302
    assert not SocialAccount.objects.get().connected
