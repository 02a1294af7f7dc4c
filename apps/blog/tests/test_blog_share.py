"""shareBlogPost posting for real through apps.social to a loopback Mastodon server: now, at a
time (delivered by the social beat task), confirmed first, refused to a viewer and for a text the
network would not take, and the share links when no account is connected."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.blog.tests.factories import published
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.social import services as social_services
from apps.social.models import SocialPost
from apps.social.tests import servers

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}


@pytest.fixture
def mastodon(people):
    with servers.mastodon() as served:
        served.account = social_services.account_connect(
            actor=people["admin"],
            network="mastodon",
            server=served.url,
            handle="",
            secret=servers.MASTODON_TOKEN,
        )
        yield served


def test_an_editor_shares_a_post_to_mastodon_now_once_confirmed(people, mastodon):
    post = published(people["admin"], title="Spring release")
    arguments = {"postId": post.pk, "message": "New on our blog:", "accountId": mastodon.account.pk}

    shared = ok(people["admin"], "shareBlogPost", arguments, **ELICIT)

    assert shared["posted"] is True and shared["socialPost"]["state"] == "sent"
    [status] = mastodon.posts()
    assert status["text"] == f"New on our blog:\n\n{shared['url']}"
    assert shared["socialPost"]["url"] == status["url"] and status["url"] in shared["message"]
    assert SocialPost.objects.get().source == f"blog:{post.pk}"


def test_a_share_at_a_time_is_delivered_by_the_social_beat_task(people, mastodon):
    post = published(people["admin"], title="Later")
    at = timezone.now() + timedelta(hours=3)
    shared = ok(
        people["admin"],
        "shareBlogPost",
        {"postId": post.pk, "accountId": mastodon.account.pk, "at": at.isoformat()},
        **ELICIT,
    )
    assert shared["posted"] is False and shared["socialPost"]["state"] == "scheduled"
    assert "Scheduled" in shared["message"] and mastodon.posts() == []
    assert social_services.deliver_due(now=at + timedelta(seconds=5)) == 1
    assert mastodon.posts()[0]["text"].startswith("Later\n\n")


def test_posting_is_asked_first_and_the_links_alone_are_not(people, mastodon):
    post = published(people["admin"], title="Ask")
    first = call(people["admin"], "shareBlogPost", {"postId": post.pk, "accountId": mastodon.account.pk})
    assert "confirmationToken" in str(first) and mastodon.posts() == []
    links = ok(people["viewer"], "shareBlogPost", {"postId": post.pk})
    assert links["posted"] is False and "accountId" in links["message"]
    assert [a["handle"] for a in links["accounts"]] == ["@acme@127.0.0.1"]


def test_a_viewer_may_not_post_and_a_too_long_text_is_refused_before_confirmation(people, mastodon):
    post = published(people["admin"], title="No")
    assert refused(people["viewer"], "shareBlogPost", {"postId": post.pk, "accountId": mastodon.account.pk})
    mastodon.account.network = "bluesky"
    mastodon.account.save()
    long = {"postId": post.pk, "accountId": mastodon.account.pk, "message": "x" * 280}
    assert "Bluesky takes at most 300" in refused(people["admin"], "shareBlogPost", long)
    assert not SocialPost.objects.exists() and mastodon.posts() == []
