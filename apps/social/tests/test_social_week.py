"""What a week of posting found: a marketer (the area's admin) connects the team's Mastodon
account and schedules the week's posts through Marketing's tools, and the team reads the settings
page. An instance that answers a 200 that is not a status no longer passes for a post without a
reason: the post is tried again with the same idempotency key (it cannot go out twice) and says why;
an answer to the credential check that is not an account is a clear refusal instead of a crash;
an address the network gives for a post or a profile that is not an http(s) link (`javascript:`)
is not kept, so the settings page never links to it; an account name longer than is kept is a
refusal, not a database error. A post of zero-width characters, which shows nothing, went out:
it is refused as empty, as a post of spaces is. A Bluesky post within 300 graphemes but over the
3000 bytes its record takes (emoji families) was scheduled and failed at the network: it is
refused before. A Mastodon post with remote mentions was refused as too long, each @name@instance
counted whole where Mastodon counts the user name alone. manageSocialPost dropped an argument its
action does not take (an edit's new time, a reschedule's new text) and answered as if all was
done: it refuses it, and nothing changes. A link ending in a parenthesis it opened (Wikipedia's
`Kestrel_(bird)`) was refused as not a link, and would have been linked without its last
character: it is taken, counted and linked whole."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.catalogue.testing import call, confirmed, ok, text_of
from apps.social import services
from apps.social.errors import SocialProviderRefused, SocialProviderUnavailable
from apps.social.models import SocialAccount, SocialPost
from apps.social.tests import servers

CONFIRM = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
State = SocialPost.State


@pytest.fixture
def mastodon():
    with servers.mastodon() as served:
        yield served


@pytest.fixture
def account(people, mastodon) -> SocialAccount:
    return services.account_connect(
        actor=people["admin"],
        network="mastodon",
        server=mastodon.url,
        handle="",
        secret=servers.MASTODON_TOKEN,
    )


def test_a_status_answer_of_the_wrong_shape_is_tried_again_with_its_reason(people, account, mastodon):
    mastodon.fail.append((200, {"unexpected": True}))
    answer = ok(people["admin"], "scheduleSocialPost", {"accountId": account.pk, "text": "Hello"}, **CONFIRM)

    post = SocialPost.objects.get()
    assert (answer["post"]["state"], post.state) == (State.SCHEDULED, State.SCHEDULED)
    assert "not a status" in post.reason


def test_a_verify_answer_of_the_wrong_shape_is_a_clear_refusal(people, mastodon):
    mastodon.fail.extend([(200, {"name": "x"}), (200, ["not", "an", "account"])])
    with pytest.raises((SocialProviderRefused, SocialProviderUnavailable)):
        services.account_connect(
            actor=people["admin"], network="mastodon", server=mastodon.url, handle="", secret="t"
        )
    assert not SocialAccount.objects.exists()


def test_a_post_link_the_network_gives_that_is_not_http_is_not_kept(people, account, mastodon, acme_client):
    mastodon.fail.append((200, {"id": "7", "url": "javascript:alert(document.cookie)"}))
    answer = ok(people["admin"], "scheduleSocialPost", {"accountId": account.pk, "text": "Hi"}, **CONFIRM)

    assert answer["post"]["state"] == State.SENT
    assert answer["post"]["url"] == ""
    acme_client.force_login(people["viewer"])
    assert "javascript:" not in acme_client.get("/settings/social/").content.decode()


def test_a_post_of_only_invisible_characters_is_refused_as_empty(people, account, mastodon):
    for text in ("\u200b\u200b", "\u2060\ufeff"):
        result = call(
            people["admin"], "scheduleSocialPost", {"accountId": account.pk, "text": text}, **CONFIRM
        )
        assert result["isError"] is True and "no text" in text_of(result), result
    assert not SocialPost.objects.exists() and not mastodon.posts()


def test_an_account_name_longer_than_is_kept_is_a_refusal_not_a_crash(people, mastodon):
    mastodon.fail.extend([(200, {"name": "Atrium"}), (200, {"id": "1", "acct": "a" * 400})])
    with pytest.raises(SocialProviderRefused):
        services.account_connect(
            actor=people["admin"], network="mastodon", server=mastodon.url, handle="", secret="t"
        )
    assert not SocialAccount.objects.exists()


@pytest.fixture
def bluesky():
    with servers.bluesky() as served:
        yield served


def test_a_bluesky_post_over_its_3000_bytes_is_refused_before_it_is_scheduled(people, bluesky):
    account = services.account_connect(
        actor=people["admin"],
        network="bluesky",
        server=bluesky.url,
        handle=servers.BLUESKY_HANDLE,
        secret=servers.BLUESKY_PASSWORD,
    )
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # one grapheme, 25 bytes
    result = call(
        people["admin"], "scheduleSocialPost", {"accountId": account.pk, "text": family * 150}, **CONFIRM
    )

    assert result["isError"] is True and "3000" in text_of(result), result
    assert not SocialPost.objects.exists() and not bluesky.posts()


def test_a_mastodon_mention_counts_as_its_user_name_as_mastodon_counts_it(people, account, mastodon):
    text = "Thanks " + "@harbourmaster@kestrel-bay-community.social " * 12 + "x" * 150
    answer = ok(people["admin"], "scheduleSocialPost", {"accountId": account.pk, "text": text}, **CONFIRM)
    assert answer["post"]["state"] == State.SENT


def test_manage_refuses_an_argument_its_action_does_not_take_instead_of_dropping_it(people, account):
    later = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    made = ok(
        people["admin"],
        "scheduleSocialPost",
        {"accountId": account.pk, "text": "Ferries resume", "at": later.isoformat()},
        **CONFIRM,
    )
    post_id = made["post"]["id"]
    for arguments in (
        {
            "action": "reschedule",
            "at": (later + timedelta(days=1)).isoformat(),
            "text": "Ferries resume Monday",
        },
        {"action": "edit", "text": "Ferries resume Monday", "at": (later + timedelta(days=1)).isoformat()},
        {"action": "cancel", "text": "Ferries resume Monday"},
    ):
        result = call(people["admin"], "manageSocialPost", {"postId": post_id, **arguments})
        assert result["isError"] is True, (arguments, result)
    post = SocialPost.objects.get()
    assert (post.text, post.scheduled_at, post.state) == ("Ferries resume", later, State.SCHEDULED)


def test_a_link_ending_in_a_parenthesis_is_taken_and_linked_whole(people, bluesky):
    account = services.account_connect(
        actor=people["admin"],
        network="bluesky",
        server=bluesky.url,
        handle=servers.BLUESKY_HANDLE,
        secret=servers.BLUESKY_PASSWORD,
    )
    link = "https://en.wikipedia.org/wiki/Kestrel_(bird)"
    answer = ok(
        people["admin"],
        "scheduleSocialPost",
        {"accountId": account.pk, "text": "Our namesake", "links": [link]},
        **CONFIRM,
    )

    assert answer["post"]["state"] == State.SENT
    [record] = bluesky.posts()
    [facet] = record["facets"]
    start, end = facet["index"]["byteStart"], facet["index"]["byteEnd"]
    assert record["text"].encode()[start:end].decode() == link == facet["features"][0]["uri"]
