"""The brand kit and designs through call_tool: per tool a normal call, bad input (nothing written)
and a refusal; a design rendered from a size preset and the brand kit as an SVG and a PNG in Files,
refined into a new version with the earlier one kept; an image drawn by the gateway's scripted
model server on loopback (OpenAI-compatible Images API), metered and labelled AI-made, and a
clear error without a model; another person's private design never listed, found or named."""

import io

import pytest
from PIL import Image

from apps.apikeys.services import api_key_create
from apps.blog.tests.blog_models import PRICES, model_api
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
from apps.files import api as files
from apps.files.api import File
from apps.marketing import brand, designs
from apps.marketing.models import DesignAsset
from apps.marketing.tests.factories import tag

ELICIT = {"capabilities": {"elicitation": {}}, "elicit": confirmed}
TOOLS = {
    "getBrandKit": ("marketing.view", {}),
    "createDesign": ("marketing.edit", {"preset": "og-image", "design": {"headline": "X"}}),
    "refineDesign": ("marketing.edit", {"designId": 1, "changes": {"headline": "Y"}}),
    "generateDesignImage": ("marketing.edit", {"prompt": "a lighthouse"}),
    "listDesignAssets": ("marketing.view", {}),
    "deleteDesignAsset": ("marketing.delete", {"assetId": 1}),
}


def _png_of(file_id, actor):
    return Image.open(io.BytesIO(files.file_bytes(files.file(actor=actor, file_id=file_id))))


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_role_without_the_permission_cannot_call_it(acme, name):
    permission, arguments = TOOLS[name]
    person = person_without(permission, email=f"no-{name.lower()}@acme.example")
    with pytest.raises(ToolNotFound):
        call(person, name, arguments)


def test_the_brand_kit_as_the_admins_set_it(people):
    brand.update(actor=people["admin"], fields={"colours": ["#112233", "#ff8800"], "voice": "warm, plain"})
    kit = ok(people["viewer"], "getBrandKit")
    assert kit["colours"][:2] == ["#112233", "#FF8800"] and kit["colours"][2:] == brand.DEFAULT_COLOURS[2:]
    assert kit["voice"] == "warm, plain" and kit["headingFont"] == "DejaVu Sans"


def test_a_design_is_rendered_from_the_kit_and_refined_in_versions(people):
    member = people["member"]
    brand.update(actor=people["admin"], fields={"colours": ["#112233", "#FF8800", "#FAFAFA", "#111111"]})
    made = ok(
        member,
        "createDesign",
        {
            "preset": "og-image",
            "design": {"headline": "Spring sale <b>now</b>", "body": "Twenty percent off"},
        },
    )
    assert (made["width"], made["height"], made["version"], made["kind"]) == (1200, 630, 1, "design")
    assert made["spec"]["background"] == "#112233" and made["spec"]["textColour"] == "#FAFAFA"
    with _png_of(made["pngFileId"], member) as picture:
        assert picture.format == "PNG" and picture.size == (1200, 630)
        assert picture.getpixel((5, 5))[:3] == (0x11, 0x22, 0x33)
    svg_file = files.file(actor=member, file_id=made["svgFileId"])
    assert svg_file.name == "Spring sale -b-now-b v1.svg" and svg_file.mime_type == "image/svg+xml"
    svg = files.file_bytes(svg_file).decode()
    assert 'width="1200" height="630"' in svg and "Spring sale &lt;b&gt;now&lt;/b&gt;" in svg

    refined = ok(
        member,
        "refineDesign",
        {"designId": made["id"], "changes": {"background": "#FFFFFF", "layout": "left"}, "preset": "story"},
    )
    assert refined["version"] == 2 and (refined["width"], refined["height"]) == (1080, 1920)
    assert refined["spec"]["headline"] == "Spring sale <b>now</b>" and refined["spec"]["layout"] == "left"
    assert refined["versions"] == [
        {
            "version": 1,
            "spec": made["spec"],
            "preset": "og-image",
            "pngFileId": made["pngFileId"],
            "svgFileId": made["svgFileId"],
        }
    ]
    with _png_of(refined["pngFileId"], member) as picture:
        assert picture.size == (1080, 1920) and picture.getpixel((5, 5))[:3] == (255, 255, 255)
    assert refined["pngFileId"] != made["pngFileId"]

    # Deleted, its files (every version's) go to Files' trash with it; restored, they come back.
    admin, ids = (
        people["admin"],
        sorted({made["pngFileId"], made["svgFileId"], refined["pngFileId"], refined["svgFileId"]}),
    )
    gone = ok(admin, "deleteDesignAsset", {"assetId": made["id"]}, **ELICIT)
    assert (gone["restored"], sorted(gone["fileIds"])) == (False, ids)
    assert File.objects.filter(pk__in=ids, deleted_at__isnull=False).count() == 4
    assert "restore: true" in refused(
        member, "refineDesign", {"designId": made["id"], "changes": {"layout": "top"}}
    )
    back = ok(admin, "deleteDesignAsset", {"assetId": made["id"], "restore": True})
    assert (back["restored"], sorted(back["fileIds"])) == (True, ids)
    assert not File.objects.filter(pk__in=ids, deleted_at__isnull=False).exists()
    assert made["id"] in {row["id"] for row in ok(member, "listDesignAssets", {"limit": 100})["items"]}
    assert "not in the trash" in refused(admin, "deleteDesignAsset", {"assetId": made["id"], "restore": True})


@pytest.mark.parametrize(
    ("name", "arguments", "said"),
    [
        ("createDesign", {"preset": "billboard", "design": {"headline": "X"}}, "preset"),
        ("createDesign", {"preset": "story", "design": {"body": "no headline"}}, "headline"),
        ("createDesign", {"preset": "story", "design": {"headline": "X", "background": "red"}}, "background"),
        ("generateDesignImage", {"prompt": "a cat", "size": "10x10"}, "size"),
    ],
)
def test_bad_input_writes_nothing(people, name, arguments, said):
    before = (DesignAsset.objects.count(), files.File.objects.count())
    assert said in refused(people["member"], name, arguments)
    assert (DesignAsset.objects.count(), files.File.objects.count()) == before


def _drawn(user, arguments, key=None):
    context = context_for(user)
    context.principal = principal_for(user, api_key_id=key.pk if key else None)
    return dispatch.call_tool(context, "generateDesignImage", arguments)


def test_an_image_is_drawn_metered_and_labelled(people):
    member = people["member"]
    key = api_key_create(user=member, label=f"designs {tag()}").key
    with model_api() as server:
        answer = structured(_drawn(member, {"prompt": "a lighthouse at dawn", "size": "1536x1024"}, key))
    assert [request["size"] for request in server.requests] == ["1536x1024"]
    price = PRICES["image-test"]
    assert answer["costMicroUsd"] == 20 * price["input"] + 1000 * price["output"]
    asset = answer["asset"]
    assert asset["kind"] == "image" and asset["aiGenerated"] is True
    stored = files.file(actor=member, file_id=asset["pngFileId"])
    assert stored.description == designs.AI_LABEL and stored.mime_type == "image/png"
    with _png_of(asset["pngFileId"], member) as picture:
        assert picture.format == "PNG" and not picture.getexif()


def test_without_a_model_a_clear_error_and_nothing_kept(people, settings):
    member = people["member"]
    key = api_key_create(user=member, label=f"designs {tag()}").key
    settings.GATEWAY_MODEL_BACKEND = ""
    before = DesignAsset.objects.count()
    said = text_of(_drawn(member, {"prompt": "a lighthouse"}, key))
    assert "no model is configured" in said and "an administrator sets one" in said
    assert DesignAsset.objects.count() == before


def test_listing_and_deleting_keep_private_designs_private(people):
    owner, member, admin = people["owner"], people["member"], people["admin"]
    secret = designs.create(
        actor=owner,
        name=f"Secret {tag()}",
        preset="og-image",
        fields={"headline": "Hidden"},
        visibility="private",
    )
    shared = designs.create(
        actor=member,
        name=f"Shared {tag()}",
        preset="og-image",
        fields={"headline": "Open"},
        visibility="workspace",
    )
    seen = {row["id"] for row in ok(member, "listDesignAssets", {"limit": 100})["items"]}
    assert shared.pk in seen and secret.pk not in seen
    for name, arguments in (
        ("refineDesign", {"designId": secret.pk, "changes": {"headline": "Mine"}}),
        ("listDesignAssets", {"query": "Secret"}),
    ):
        answer = call(member, name, arguments)
        assert secret.name not in str(answer)
    assert ok(member, "listDesignAssets", {"query": "Hidden"})["total"] == 0

    asked = call(admin, "deleteDesignAsset", {"assetId": shared.pk})
    assert "confirmationToken" in str(asked) and DesignAsset.objects.get(pk=shared.pk).deleted_at is None
    assert ok(admin, "deleteDesignAsset", {"assetId": shared.pk}, **ELICIT)["id"] == shared.pk
    assert shared.pk not in {row["id"] for row in ok(member, "listDesignAssets", {"limit": 100})["items"]}
    assert "in the trash" in refused(
        member, "refineDesign", {"designId": shared.pk, "changes": {"headline": "X"}}
    )
