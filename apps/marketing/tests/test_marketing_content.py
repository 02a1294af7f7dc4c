"""The content tools through call_tool: per tool a normal call, bad input and a refusal; HTML
sanitised on save and said so; who sees what under two roles; publishing by type (e-mail into a
draft campaign, social to a loopback Mastodon server, blog and ads said plainly); the copy a model
writes (the gateway's scripted model server), labelled and metered."""

import pytest
from django.test import override_settings

from apps.apikeys.services import api_key_create
from apps.catalogue import dispatch
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    call,
    confirmed,
    context_for,
    ok,
    person_without,
    principal_for,
    refused,
    structured,
    text_of,
)
from apps.marketing import content
from apps.marketing.models import BrandKit, Campaign, ContentItem
from apps.marketing.tests.content_models import model_api
from apps.marketing.tests.factories import campaign, tag
from apps.social import services as social_services
from apps.social.models import SocialPost
from apps.social.tests import servers

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}

TOOLS = {
    "createMarketingContent": ("marketing.edit", {"contentItem": {"name": "X", "type": "ad", "body": "B"}}),
    "getMarketingContent": ("marketing.view", {"contentId": 1}),
    "updateMarketingContent": ("marketing.edit", {"contentId": 1, "changes": {"name": "Y"}}),
    "deleteMarketingContent": ("marketing.delete", {"contentId": 1}),
    "searchMarketingContent": ("marketing.view", {}),
    "publishMarketingContent": ("marketing.launch", {"contentId": 1}),
    "generateMarketingContent": ("marketing.edit", {"type": "ad", "brief": "summer"}),
    "listSocialAccounts": ("marketing.view", {}),
    "scheduleSocialPost": ("marketing.launch", {"accountId": 1, "text": "x"}),
    "manageSocialPost": ("marketing.view", {"postId": 1, "action": "status"}),
}


def made(actor, **fields):
    fields.setdefault("name", f"Copy {tag()}")
    fields.setdefault("type", "email")
    fields.setdefault("title", "Summer news")
    fields.setdefault("body", "<p>Hello, see <a href='https://example.org/s'>the sale</a>.</p>")
    return content.create(actor=actor, fields=fields)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


def test_create_sanitises_html_and_says_so_and_bad_input_writes_nothing(people):
    member = people["member"]
    answer = ok(
        member,
        "createMarketingContent",
        {
            "contentItem": {
                "name": "Launch mail",
                "type": "email",
                "title": "We launched",
                "body": '<p onclick="x()">Hi</p><script>alert(1)</script><a href="javascript:x">x</a>',
                "variants": [{"body": "<p>Other</p>"}],
            }
        },
    )
    assert answer["sanitised"] is True and "<script" not in answer["body"] and "onclick" not in answer["body"]
    assert "javascript" not in answer["body"] and answer["variants"] == [
        {"label": "B", "body": "<p>Other</p>"}
    ]
    assert answer["status"] == "draft" and answer["aiGenerated"] is False
    clean = ok(
        member,
        "createMarketingContent",
        {"contentItem": {"name": "Plain", "type": "ad", "body": "<p>ok</p>"}},
    )
    assert clean["sanitised"] is False

    before = ContentItem.objects.count()
    assert "one of email" in refused(
        member, "createMarketingContent", {"contentItem": {"name": "N", "body": "x"}}
    )
    assert "already" in refused(
        member, "createMarketingContent", {"contentItem": {"name": "launch MAIL", "type": "ad", "body": "x"}}
    )
    assert "line breaks" in refused(
        member,
        "createMarketingContent",
        {"contentItem": {"name": "Inj", "type": "email", "title": "a\nBcc: x", "body": "x"}},
    )
    assert "given twice" in refused(
        member,
        "createMarketingContent",
        {
            "contentItem": {
                "name": "V",
                "type": "ad",
                "body": "x",
                "variants": [{"label": "B", "body": "1"}, {"label": "b", "body": "2"}],
            }
        },
    )
    assert ContentItem.objects.count() == before


def test_social_copy_is_kept_as_plain_text(people):
    answer = ok(
        people["member"],
        "createMarketingContent",
        {"contentItem": {"name": "Toot", "type": "social", "body": "<b>Big</b> news"}},
    )
    assert answer["body"] == "Big news" and answer["sanitised"] is True


def test_get_update_search_and_who_sees_what(people):
    member, owner, viewer = people["member"], people["owner"], people["viewer"]
    mine = made(member, name=f"Mine {tag()}")
    secret = made(owner, name=f"Secret {tag()}", visibility="private")

    assert ok(viewer, "getMarketingContent", {"contentId": mine.pk})["title"] == "Summer news"
    found = ok(member, "searchMarketingContent", {"query": "Summer", "limit": 100})
    names = [item["name"] for item in found["items"]]
    assert mine.name in names and secret.name not in names
    said = refused(member, "getMarketingContent", {"contentId": secret.pk})
    assert secret.name not in said and "not found" in said.lower()
    assert secret.name in [
        item["name"] for item in ok(owner, "searchMarketingContent", {"limit": 100})["items"]
    ]
    ads = ok(member, "searchMarketingContent", {"type": "ad", "limit": 100})["items"]
    assert mine.name not in [item["name"] for item in ads] and all(item["type"] == "ad" for item in ads)

    changed = ok(
        member,
        "updateMarketingContent",
        {
            "contentId": mine.pk,
            "changes": {"title": "Autumn news", "variants": [{"label": "Short", "body": "<p>Hi</p>"}]},
        },
    )
    assert changed["title"] == "Autumn news" and changed["variants"][0]["label"] == "Short"
    assert "fixed once made" in refused(
        member, "updateMarketingContent", {"contentId": mine.pk, "changes": {"type": "ad"}}
    )
    assert refused(member, "updateMarketingContent", {"contentId": secret.pk, "changes": {"name": "Taken"}})
    assert ContentItem.objects.get(pk=secret.pk).name == secret.name
    with pytest.raises(ToolNotFound):
        call(viewer, "updateMarketingContent", {"contentId": mine.pk, "changes": {"name": "V"}})


def test_delete_asks_first_and_goes_to_the_trash(people):
    admin = people["admin"]
    item = made(admin)
    first = call(admin, "deleteMarketingContent", {"contentId": item.pk})
    assert "confirmationToken" in str(first) and ContentItem.objects.get(pk=item.pk).deleted_at is None
    assert ok(admin, "deleteMarketingContent", {"contentId": item.pk}, **ELICIT)["id"] == item.pk
    assert ContentItem.objects.get(pk=item.pk).deleted_at is not None
    assert refused(admin, "getMarketingContent", {"contentId": item.pk})
    with pytest.raises(ToolNotFound):
        call(people["member"], "deleteMarketingContent", {"contentId": item.pk})


def test_email_content_is_published_as_a_draft_campaigns_subject_and_body(people):
    admin = people["admin"]
    item = made(admin, name="Summer mail", variants=[{"label": "B", "body": "<p>Variant B text</p>"}])
    asked = call(admin, "publishMarketingContent", {"contentId": item.pk})
    assert "confirmationToken" in str(asked) and not Campaign.objects.filter(name="Summer mail").exists()

    done = ok(admin, "publishMarketingContent", {"contentId": item.pk, "variant": "B"}, **ELICIT)

    made_campaign = Campaign.objects.get(pk=done["campaign"]["id"])
    assert made_campaign.subject == "Summer news" and made_campaign.body == "Variant B text"
    assert made_campaign.status == "draft" and "launchMarketingCampaign" in done["message"]
    assert (
        done["content"]["status"] == "published"
        and done["content"]["publishedTo"] == f"campaign:{made_campaign.pk}"
    )
    again = refused(admin, "publishMarketingContent", {"contentId": item.pk}, **ELICIT)
    assert "went out already" in again
    assert "its text is what went out" in refused(
        admin, "updateMarketingContent", {"contentId": item.pk, "changes": {"body": "new"}}
    )

    into = campaign(admin, name=f"Existing {tag()}")
    other = made(admin, title="Into existing", body="<p>One</p><p>Two</p>")
    ok(admin, "publishMarketingContent", {"contentId": other.pk, "campaignId": into.pk}, **ELICIT)
    into.refresh_from_db()
    assert into.subject == "Into existing" and into.body == "One\nTwo"


def test_bad_publishing_is_refused_before_confirmation_with_nothing_written(people):
    admin = people["admin"]
    blog = made(admin, type="blog", title="Post")
    ad = made(admin, type="ad")
    untitled = made(admin, title="")
    assert "no public module" in refused(admin, "publishMarketingContent", {"contentId": blog.pk})
    assert "no ad network" in refused(admin, "publishMarketingContent", {"contentId": ad.pk})
    assert "needs a title" in refused(admin, "publishMarketingContent", {"contentId": untitled.pk})
    titled = made(admin)
    assert "not one of its variants" in refused(
        admin, "publishMarketingContent", {"contentId": titled.pk, "variant": "Z"}
    )
    social = made(admin, type="social", body="Hello")
    assert "No social account is connected" in refused(
        admin, "publishMarketingContent", {"contentId": social.pk}
    )
    assert not ContentItem.objects.filter(status="published").exists() and not SocialPost.objects.exists()
    with pytest.raises(ToolNotFound):
        call(people["member"], "publishMarketingContent", {"contentId": blog.pk})


def test_social_content_is_posted_to_mastodon_labelled_when_a_model_wrote_it(people):
    admin = people["admin"]
    with servers.mastodon() as served:
        account = social_services.account_connect(
            actor=admin, network="mastodon", server=served.url, handle="", secret=servers.MASTODON_TOKEN
        )
        item = made(admin, type="social", body="Our summer sale is on", ai_generated=True)
        assert "name the account" in refused(admin, "publishMarketingContent", {"contentId": item.pk})
        done = ok(admin, "publishMarketingContent", {"contentId": item.pk, "accountId": account.pk}, **ELICIT)
        [status] = served.posts()
    assert status["text"] == f"Our summer sale is on\n\n{content.AI_LABEL}"
    assert done["socialPost"]["state"] == "sent" and done["content"]["status"] == "published"
    assert SocialPost.objects.get().source == f"marketing:content:{item.pk}"


def _generate(user, arguments, key=None):
    context = context_for(user)
    context.principal = principal_for(user, api_key_id=key.pk if key else None)
    return dispatch.call_tool(context, "generateMarketingContent", arguments)


def test_generated_copy_follows_the_brand_voice_is_sanitised_labelled_and_metered(people):
    member = people["member"]
    BrandKit.objects.update_or_create(pk=1, defaults={"voice": "warm and plain"})
    key = api_key_create(user=member, label="marketing tests").key
    with model_api() as server:
        answer = structured(
            _generate(member, {"type": "email", "brief": "our summer sale", "variants": 2}, key)
        )
    made_item = answer["content"]
    assert made_item["aiGenerated"] is True and made_item["title"] == "Summer sale: 20% off"
    assert "<script" not in made_item["body"] and made_item["sanitised"] is True
    assert [variant["label"] for variant in made_item["variants"]] == ["B", "C"]
    assert answer["costMicroUsd"] == 150 * 1 + 60 * 2 and answer["model"] == "chat-test"
    key.refresh_from_db()
    assert key.spent_micro_usd == 270
    assert "warm and plain" in server.requests[0]["messages"][0]["content"]
    assert "our summer sale" in server.requests[0]["messages"][-1]["content"]


def test_without_a_model_a_key_or_a_usable_answer_nothing_is_made(people):
    from apps.gateway.tests.servers import openai_text

    member = people["member"]
    key = api_key_create(user=member, label="marketing tests").key
    before = ContentItem.objects.count()
    with override_settings(GATEWAY_MODEL_BACKEND="", GATEWAY_MODEL_URL=""):
        said = text_of(_generate(member, {"type": "ad", "brief": "sale"}, key))
    assert "no model is configured" in said and "ATRIUM_GATEWAY_MODEL_BACKEND" in said
    with model_api():
        assert "has no API key" in text_of(_generate(member, {"type": "ad", "brief": "sale"}))
    with model_api(lambda body, index: openai_text("no JSON here", usage=(5, 5))):
        assert "not the JSON object asked for" in text_of(
            _generate(member, {"type": "ad", "brief": "sale"}, key)
        )
    assert ContentItem.objects.count() == before


def test_the_settings_page_lists_content_labelled_and_hides_others_private_copy(acme_client, people):
    shown = made(people["member"], name=f"Shown {tag()}", ai_generated=True)
    hidden = made(people["owner"], name=f"Hidden {tag()}", visibility="private")
    acme_client.force_login(people["member"])
    body = acme_client.get("/settings/marketing/").content.decode()
    assert f'id="content-{shown.pk}"' in body and shown.name in body and "written with AI" in body
    assert hidden.name not in body
