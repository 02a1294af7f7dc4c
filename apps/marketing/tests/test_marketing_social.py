"""listSocialAccounts, scheduleSocialPost and manageSocialPost over apps.social.api, posting for
real to a loopback Mastodon server: with no account (said plainly), now, at a time (delivered by
the social beat task), the network's limit checked before the confirmation, a scheduled post
moved, edited and cancelled, and another area's post left alone."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, confirmed, ok, refused
from apps.social import api as social_api
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


def test_with_no_account_connected_each_tool_says_so_plainly(people):
    listed = ok(people["viewer"], "listSocialAccounts")
    assert listed["accounts"] == [] and "Settings → Social accounts" in listed["message"]
    said = refused(people["admin"], "scheduleSocialPost", {"accountId": 1, "text": "Hello"}, **ELICIT)
    assert "No social account is connected" in said and "Settings → Social accounts" in said
    assert not SocialPost.objects.exists()


def test_a_post_now_is_confirmed_first_then_delivered_to_mastodon(people, mastodon):
    arguments = {"accountId": mastodon.account.pk, "text": "Spring sale", "links": ["https://example.org/s"]}
    first = call(people["admin"], "scheduleSocialPost", arguments)
    assert "confirmationToken" in str(first) and mastodon.posts() == []

    posted = ok(people["admin"], "scheduleSocialPost", arguments, **ELICIT)

    assert posted["post"]["state"] == "sent" and posted["post"]["url"] in posted["message"]
    [status] = mastodon.posts()
    assert status["text"] == "Spring sale\n\nhttps://example.org/s"
    assert SocialPost.objects.get().source == "marketing:post"
    listed = ok(people["viewer"], "listSocialAccounts")
    assert [account["handle"] for account in listed["accounts"]] == ["@acme@127.0.0.1"] and not listed[
        "message"
    ]


def test_a_post_at_a_time_is_moved_edited_then_delivered_by_the_beat_task(people, mastodon):
    at = timezone.now() + timedelta(hours=2)
    posted = ok(
        people["admin"],
        "scheduleSocialPost",
        {"accountId": mastodon.account.pk, "text": "Later", "at": at.isoformat()},
        **ELICIT,
    )
    post_id = posted["post"]["id"]
    assert posted["post"]["state"] == "scheduled" and "Scheduled" in posted["message"]
    assert [post["id"] for post in ok(people["viewer"], "listSocialAccounts")["scheduled"]] == [post_id]

    later = at + timedelta(days=1)
    moved = ok(
        people["admin"],
        "manageSocialPost",
        {"postId": post_id, "action": "reschedule", "at": later.isoformat()},
    )
    edited = ok(
        people["admin"], "manageSocialPost", {"postId": post_id, "action": "edit", "text": "Later, edited"}
    )
    status = ok(people["viewer"], "manageSocialPost", {"postId": post_id, "action": "status"})

    assert moved["post"]["state"] == "scheduled" and SocialPost.objects.get(pk=post_id).scheduled_at == later
    assert edited["post"]["text"] == status["post"]["text"] == "Later, edited"
    assert social_services.deliver_due(now=at + timedelta(minutes=5)) == 0, "moved a day on"
    assert social_services.deliver_due(now=later + timedelta(minutes=5)) == 1
    assert mastodon.posts()[0]["text"] == "Later, edited"
    out = refused(people["admin"], "manageSocialPost", {"postId": post_id, "action": "cancel"})
    assert "only a scheduled post" in out


def test_cancel_a_scheduled_post_and_bad_input_is_refused_with_nothing_changed(people, mastodon):
    at = timezone.now() + timedelta(hours=1)
    made = social_api.post(
        actor=people["admin"], account_id=mastodon.account.pk, text="Soon", at=at, source="marketing:post"
    )
    assert "needs the new time" in refused(
        people["admin"], "manageSocialPost", {"postId": made.pk, "action": "reschedule"}
    )
    assert "needs the new text" in refused(
        people["admin"], "manageSocialPost", {"postId": made.pk, "action": "edit", "text": " "}
    )
    cancelled = ok(people["admin"], "manageSocialPost", {"postId": made.pk, "action": "cancel"})
    assert cancelled["post"]["state"] == "cancelled" and "Cancelled" in cancelled["message"]
    assert social_services.deliver_due(now=at + timedelta(minutes=5)) == 0 and mastodon.posts() == []


def test_limits_are_checked_before_confirmation_and_others_posts_are_not_marketings(people, mastodon):
    mastodon.account.network = "bluesky"
    mastodon.account.save()
    said = refused(
        people["admin"], "scheduleSocialPost", {"accountId": mastodon.account.pk, "text": "é" * 301}
    )
    assert "Bluesky takes at most 300" in said
    mastodon.account.network = "mastodon"
    mastodon.account.save()
    said = refused(
        people["admin"], "scheduleSocialPost", {"accountId": mastodon.account.pk, "text": "x" * 501}
    )
    assert "Mastodon takes at most 500" in said
    past = (timezone.now() - timedelta(days=1)).isoformat()
    assert refused(
        people["admin"], "scheduleSocialPost", {"accountId": mastodon.account.pk, "text": "x", "at": past}
    )
    assert not SocialPost.objects.exists()

    blog = social_api.post(
        actor=people["admin"],
        account_id=mastodon.account.pk,
        text="A blog share",
        at=timezone.now() + timedelta(hours=1),
        source="blog:1",
    )
    said = refused(people["admin"], "manageSocialPost", {"postId": blog.pk, "action": "cancel"})
    assert "was not found" in said and SocialPost.objects.get(pk=blog.pk).state == "scheduled"


def test_who_may_post_and_change(people, mastodon):
    at = (timezone.now() + timedelta(hours=1)).isoformat()
    with pytest.raises(ToolNotFound):
        call(
            people["member"], "scheduleSocialPost", {"accountId": mastodon.account.pk, "text": "x", "at": at}
        )
    made = social_api.post(
        actor=people["admin"],
        account_id=mastodon.account.pk,
        text="Mine",
        at=timezone.now() + timedelta(hours=1),
        source="marketing:post",
    )
    assert (
        ok(people["viewer"], "manageSocialPost", {"postId": made.pk, "action": "status"})["post"]["text"]
        == "Mine"
    )
    said = refused(people["viewer"], "manageSocialPost", {"postId": made.pk, "action": "cancel"})
    assert "marketing.launch" in said or "permission" in said.lower()
    assert SocialPost.objects.get(pk=made.pk).state == "scheduled"
