"""translateBlogPost, polishBlogPost, generateBlogImage and generateBlogContentImage through the
gateway's OpenAI-compatible backend (a scripted model server on loopback), metered against the
caller's API key; without a backend or a key, a clear error and nothing changed."""

import io

import pytest
from PIL import Image as PilImage

from apps.apikeys.models import Reservation, UsageDay
from apps.apikeys.services import api_key_create
from apps.blog.models import Image, Post
from apps.blog.tests.blog_models import POLISHED, PRICES, TRANSLATED, model_api
from apps.blog.tests.factories import PostFactory
from apps.catalogue import dispatch
from apps.catalogue.testing import context_for, principal_for, structured, text_of


def _call(user, name, arguments, key=None):
    context = context_for(user)
    context.principal = principal_for(user, api_key_id=key.pk if key else None)
    return dispatch.call_tool(context, name, arguments)


def _ok(user, name, arguments, key):
    return structured(_call(user, name, arguments, key))


def _refused(user, name, arguments, key=None):
    result = _call(user, name, arguments, key)
    assert result["isError"] is True, result
    return text_of(result)


def _key(user):
    return api_key_create(user=user, label="blog tests").key


def _spent(key):
    key.refresh_from_db()
    return key.spent_micro_usd, key.reserved_micro_usd


def test_translate_makes_a_linked_sanitised_draft_and_meters_it(people):
    member = people["member"]
    original = PostFactory(actor=member, title="Hello", body="<p>Hello world</p>", slug="hello")
    key = _key(member)

    with model_api() as server:
        answer = _ok(member, "translateBlogPost", {"postId": original.pk, "language": "DE"}, key)

    translation = answer["translation"]
    assert (translation["language"], translation["slug"], translation["status"]) == ("de", "hello", "draft")
    assert translation["translationOf"] == original.pk and translation["aiGenerated"] is True
    assert TRANSLATED in translation["body"] and "<script" not in translation["body"] and answer["sanitised"]
    assert translation["title"] == "DE Hello" and translation["excerpt"] == "Kurz gesagt."
    price = PRICES["chat-test"]
    assert answer["costMicroUsd"] == 300 * price["input"] + 120 * price["output"] == _spent(key)[0]
    [request] = server.requests
    assert "'de'" in request["messages"][0]["content"] and "Hello world" in request["messages"][-1]["content"]

    with model_api() as server:
        again = _refused(member, "translateBlogPost", {"postId": original.pk, "language": "de"}, key)
        same = _refused(member, "translateBlogPost", {"postId": original.pk, "language": "en"}, key)
    assert "already has a de translation" in again and "is written in en" in same and server.requests == []


def test_polish_rewrites_in_place_and_labels_it(people):
    member = people["member"]
    post = PostFactory(actor=member, title="Draft", body="<p>bad sentense</p>")
    key = _key(member)

    with model_api():
        answer = _ok(member, "polishBlogPost", {"postId": post.pk, "instructions": "friendlier"}, key)
    assert answer["changed"] == ["title", "body"] and POLISHED in answer["post"]["body"]
    assert answer["post"]["title"] == "Draft (polished)" and answer["post"]["aiGenerated"] is True

    with model_api():
        kept = _ok(member, "polishBlogPost", {"postId": post.pk, "keepTitle": True}, key)
    assert kept["post"]["title"] == "Draft (polished)"


def test_images_are_made_stripped_of_metadata_and_placed(people):
    member = people["member"]
    post = PostFactory(actor=member, title="Pictures", body="<p>Text</p>")
    key = _key(member)

    with model_api() as server:
        header = _ok(
            member,
            "generateBlogImage",
            {"postId": post.pk, "prompt": "a lighthouse", "alt": "A lighthouse"},
            key,
        )
        inside = _ok(
            member,
            "generateBlogContentImage",
            {"postId": post.pk, "prompt": "a chart", "alt": "A chart", "caption": "Growth"},
            key,
        )
    assert [request["size"] for request in server.requests] == ["1536x1024", "1024x1024"]
    assert server.requests[0]["model"] == "image-test"
    price = PRICES["image-test"]
    assert header["costMicroUsd"] == 20 * price["input"] + 1000 * price["output"]
    image = Image.objects.get(pk=header["image"]["id"])
    assert (
        image.alt == "A lighthouse"
        and image.ai_generated
        and header["image"]["url"].endswith(f"/blog/images/{image.pk}/")
    )
    with PilImage.open(io.BytesIO(bytes(image.data))) as decoded:
        assert decoded.format == "PNG" and not decoded.getexif() and decoded.size == (96, 64)
    post.refresh_from_db()
    assert post.featured_image_id == image.pk
    assert (
        f'src="/blog/images/{inside["image"]["id"]}/"' in post.body
        and "<figcaption>Growth</figcaption>" in post.body
    )


def test_without_a_model_or_a_key_nothing_is_charged_or_changed(people, settings):
    member = people["member"]
    post = PostFactory(actor=member, title="Untouched", body="<p>Same</p>")
    key = _key(member)
    settings.GATEWAY_MODEL_BACKEND = ""

    for name, arguments in [
        ("translateBlogPost", {"postId": post.pk, "language": "fr"}),
        ("polishBlogPost", {"postId": post.pk}),
        ("generateBlogImage", {"postId": post.pk, "prompt": "a cat", "alt": "A cat"}),
        ("generateBlogContentImage", {"postId": post.pk, "prompt": "a cat", "alt": "A cat"}),
    ]:
        said = _refused(member, name, arguments, key)
        assert "no model is configured" in said and "an administrator sets one" in said, said

    with model_api(GATEWAY_MODEL_IMAGE_NAME=""):
        assert "no image model is configured" in _refused(
            member, "generateBlogImage", {"postId": post.pk, "prompt": "a cat", "alt": "A cat"}, key
        )
    with model_api() as server:
        assert "has no API key" in _refused(member, "polishBlogPost", {"postId": post.pk})
        assert server.requests == []
    assert _spent(key) == (0, 0)
    post.refresh_from_db()
    assert (post.title, post.body, Post.objects.count(), Image.objects.count()) == (
        "Untouched",
        "<p>Same</p>",
        1,
        0,
    )


def test_an_answer_that_is_not_the_json_asked_for_changes_nothing_but_is_paid_for(people):
    from apps.gateway.tests.servers import openai_text

    member = people["member"]
    post = PostFactory(actor=member, title="Kept", body="<p>Kept</p>")
    key = _key(member)
    with model_api(lambda body, index: openai_text("Sure! Here is your text.", usage=(300, 40))):
        said = _refused(member, "polishBlogPost", {"postId": post.pk}, key)
    assert "not the JSON object asked for" in said
    post.refresh_from_db()
    assert post.body == "<p>Kept</p>"
    # The tool's rows are undone, but the model call was made: the key pays for it (a refused
    # answer is no way round a budget), on its day's usage and in its trail of reservations.
    price = PRICES["chat-test"]
    cost = 300 * price["input"] + 40 * price["output"]
    assert _spent(key) == (cost, 0)
    [day] = UsageDay.objects.filter(key=key)
    assert (day.spent_micro_usd, day.calls, day.input_tokens, day.output_tokens) == (cost, 1, 300, 40)
    [paid] = Reservation.objects.filter(key=key)
    assert (paid.state, paid.cost_micro_usd, paid.purpose) == ("settled", cost, "polishBlogPost")


@pytest.mark.parametrize("name", ["translateBlogPost", "polishBlogPost", "generateBlogImage"])
def test_a_viewer_is_refused_before_any_model_call(people, name):
    from apps.catalogue.dispatch import ToolNotFound

    post = PostFactory(actor=people["member"])
    arguments = {"postId": post.pk, "language": "de", "prompt": "x y z", "alt": "x y z"}
    with model_api() as server, pytest.raises(ToolNotFound):
        _call(people["viewer"], name, {k: v for k, v in arguments.items() if k in _args(name)})
    assert server.requests == []


def _args(name):
    return {
        "translateBlogPost": {"postId", "language"},
        "polishBlogPost": {"postId"},
        "generateBlogImage": {"postId", "prompt", "alt"},
    }[name]
