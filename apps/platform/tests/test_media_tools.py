"""extractDocumentText (the files' own extraction, Tesseract for scans), transcribeAudio and
analyzeImage (the gateway's OpenAI-compatible backend, against a model server on loopback, metered
against the caller's API key). Per tool a normal call, bad input and a refusal."""

import base64
import io

import pytest
from PIL import Image

from apps.apikeys.models import ApiKey, Reservation
from apps.apikeys.services import api_key_create
from apps.catalogue import dispatch
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import (
    call,
    context_for,
    ok,
    person_without,
    principal_for,
    refused,
    structured,
    text_of,
)
from apps.documents.tests.factories import DocumentFactory
from apps.files import services as files
from apps.gateway.tests.servers import Reply, anthropic_text
from apps.platform import media
from apps.platform.tests.media_models import PRICES, SAID, SEEN, model_api, png, wav


def _stored(actor, name, content, visibility="workspace"):
    return files.file_create(actor=actor, name=name, content=content, visibility=visibility)


def _scan(rows):
    from PIL import ImageDraw, ImageFont

    font = ImageFont.load_default(size=36)
    image = Image.new("L", (1700, 120 + 60 * len(rows)), color=255)
    draw = ImageDraw.Draw(image)
    for index, row in enumerate(rows):
        draw.text((80, 60 + 60 * index), row, fill=0, font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _colleague(email):
    from apps.accounts.models import Role, User

    return User.objects.create_user(email=email, password=None, role=Role.objects.get(key="member"))


def _key(user, **fields):
    return api_key_create(user=user, label="media tests", **fields).key


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


def _spent(key):
    key.refresh_from_db()
    return key.spent_micro_usd, key.reserved_micro_usd


# --- extractDocumentText ---------------------------------------------------------------------------


def test_extract_reads_a_text_file_a_document_and_a_scan_by_ocr_in_pages(people):
    member = people["member"]
    notes = _stored(member, "notes.txt", ("Quarterly plan. " * 100).encode())

    first = ok(member, "extractDocumentText", {"fileId": notes.pk, "maxChars": 1000})
    assert (first["method"], first["source"], first["totalChars"]) == ("text", "file", 1600)
    assert len(first["text"]) == 1000 and first["nextOffset"] == 1000
    rest = ok(member, "extractDocumentText", {"fileId": notes.pk, "offset": 1000, "maxChars": 1000})
    assert rest["nextOffset"] is None and first["text"] + rest["text"] == "Quarterly plan. " * 100

    document = DocumentFactory(actor=member, title="Board memo", content="The board approved the budget.")
    read = ok(member, "extractDocumentText", {"documentId": document.pk})
    assert (read["source"], read["method"], read["name"]) == ("document", "document", "Board memo")
    assert "approved the budget" in read["text"]

    scan = _stored(member, "receipt.png", _scan(["Harbour Stationers", "Total 503.40"]))
    seen = ok(member, "extractDocumentText", {"fileId": scan.pk})
    assert seen["method"] == "ocr" and "Harbour Stationers" in seen["text"] and "503.40" in seen["text"]


def test_extract_refuses_bad_input_and_says_when_tesseract_is_missing(people, settings, monkeypatch):
    member = people["member"]
    scan = _stored(member, "scan.png", _scan(["Anything at all"]))
    notes = _stored(member, "notes.txt", b"plain words")

    assert "fileId (from listFiles) or documentId" in refused(member, "extractDocumentText", {})
    assert "one of them" in refused(member, "extractDocumentText", {"fileId": notes.pk, "documentId": 1})
    assert "only OCR reads it" in refused(member, "extractDocumentText", {"fileId": scan.pk, "ocr": "never"})
    assert "OCR reads only images and PDFs" in refused(
        member, "extractDocumentText", {"fileId": notes.pk, "ocr": "always"}
    )
    assert "listFiles" in refused(member, "extractDocumentText", {"fileId": 987654321})
    assert "maxChars" in refused(member, "extractDocumentText", {"fileId": notes.pk, "maxChars": 0})
    sound = _stored(member, "memo.wav", wav())
    assert "have no text to read" in refused(member, "extractDocumentText", {"fileId": sound.pk})

    monkeypatch.setattr(media, "MAX_BYTES", 5)
    assert "reads files of at most 25 MB" in refused(member, "extractDocumentText", {"fileId": notes.pk})
    monkeypatch.undo()

    settings.ATRIUM_ACCOUNTING_TESSERACT = "no-such-tesseract"
    message = refused(member, "extractDocumentText", {"fileId": scan.pk})
    assert "tesseract-ocr" in message and "not installed" in message
    # A file with text needs no OCR.
    assert ok(member, "extractDocumentText", {"fileId": notes.pk})["text"] == "plain words"


def test_extract_reads_only_what_the_caller_may_see(people, acme):
    secret = _stored(people["member"], "salaries.txt", b"Top secret numbers", visibility="private")

    for person in (people["viewer"], _colleague("colleague-text@acme.example")):
        message = refused(person, "extractDocumentText", {"fileId": secret.pk})
        assert "was not found" in message and "Top secret" not in message
    nobody = person_without("platform.view", email="no-platform@acme.example")
    with pytest.raises(ToolNotFound):
        call(nobody, "extractDocumentText", {"fileId": secret.pk})


# --- transcribeAudio -------------------------------------------------------------------------------


def test_transcribe_sends_the_file_as_multipart_and_meters_the_call(people):
    member = people["member"]
    memo = _stored(member, "client call.wav", wav())
    key = _key(member)

    with model_api() as server:
        heard = _ok(member, "transcribeAudio", {"fileId": memo.pk, "language": "en", "prompt": "Acme"}, key)

    assert (
        heard["text"] == SAID and heard["model"] == "transcribe-test" and heard["name"] == "client call.wav"
    )
    price = PRICES["transcribe-test"]
    assert heard["costMicroUsd"] == 120 * price["input"] + 11 * price["output"]
    [form] = server.requests
    assert form["model"] == "transcribe-test" and form["language"] == "en" and form["prompt"] == "Acme"
    assert form["file"]["filename"] == "client call.wav" and form["file"]["content_type"] in (
        "audio/x-wav",
        "audio/wav",
    )
    assert form["file"]["data"] == wav()
    assert _spent(key) == (heard["costMicroUsd"], 0)
    assert Reservation.objects.get(key=key).state == Reservation.State.SETTLED


def test_transcribe_refuses_bad_input_and_a_missing_model_clearly_and_charges_nothing(people, settings):
    member = people["member"]
    memo = _stored(member, "memo.wav", wav())
    photo = _stored(member, "photo.png", png())
    key = _key(member)

    settings.GATEWAY_MODEL_BACKEND = ""
    assert "no model backend is configured" in _refused(member, "transcribeAudio", {"fileId": memo.pk}, key)
    with model_api(GATEWAY_MODEL_TRANSCRIPTION_NAME=""):
        assert "no transcription model is configured" in _refused(
            member, "transcribeAudio", {"fileId": memo.pk}, key
        )
    with model_api(lambda body, index: Reply(500, {"error": {"message": "down"}})) as server:
        assert "answered 500" in _refused(member, "transcribeAudio", {"fileId": memo.pk}, key)
        assert "not audio or video" in _refused(member, "transcribeAudio", {"fileId": photo.pk}, key)
        assert "language" in _refused(
            member, "transcribeAudio", {"fileId": memo.pk, "language": "English"}, key
        )
        assert "connect with a personal access token and an API key" in _refused(
            member, "transcribeAudio", {"fileId": memo.pk}
        )
        spent = _key(member, budget_usd_cents=1)
        assert "budget" in _refused(member, "transcribeAudio", {"fileId": memo.pk}, spent).lower()
        assert len(server.requests) == 1  # the one that answered 500
    assert _spent(key) == (0, 0)
    # The failed call's reservation was released, and the tool's failure rolled it back: none is held.
    assert not Reservation.objects.filter(key=key, state=Reservation.State.RESERVED).exists()


def test_transcribe_reads_only_what_the_caller_may_see(people, acme):
    memo = _stored(people["member"], "private memo.wav", wav(), visibility="private")

    with model_api() as server:
        for person in (people["viewer"], _colleague("colleague-audio@acme.example")):
            assert "was not found" in _refused(person, "transcribeAudio", {"fileId": memo.pk}, _key(person))
        nobody = person_without("platform.view", email="no-platform-audio@acme.example")
        with pytest.raises(ToolNotFound):
            call(nobody, "transcribeAudio", {"fileId": memo.pk})
    assert server.requests == []


# --- analyzeImage ----------------------------------------------------------------------------------


def _exif_jpeg():
    exif = Image.Exif()
    exif[0x010F] = "SpyCam Ltd"  # Make
    exif[0x0110] = "Model 7"
    return png("red", (3000, 1000), exif=exif.tobytes(), fmt="JPEG")


def test_analyze_sends_the_image_without_its_metadata_and_meters_the_call(people):
    member = people["member"]
    photo_bytes = _exif_jpeg()
    assert b"SpyCam" in photo_bytes
    photo = _stored(member, "parcel.jpg", photo_bytes)
    key = _key(member)

    with model_api() as server:
        seen = _ok(member, "analyzeImage", {"fileId": photo.pk, "question": "Is it damaged?"}, key)

    assert (seen["answer"], seen["model"], seen["metadataRemoved"], seen["cut"]) == (
        SEEN,
        "vision-test",
        True,
        False,
    )
    assert (seen["width"], seen["height"]) == (2048, 683)
    price = PRICES["vision-test"]
    assert seen["costMicroUsd"] == 800 * price["input"] + 14 * price["output"] == _spent(key)[0]
    [request] = server.requests
    assert request["model"] == "vision-test" and request["max_tokens"] == 600
    [text, image] = request["messages"][0]["content"]
    assert text == {"type": "text", "text": "Is it damaged?"}
    head, _comma, data = image["image_url"]["url"].partition(",")
    assert head == "data:image/jpeg;base64"
    sent = base64.b64decode(data)
    assert b"SpyCam" not in sent
    with Image.open(io.BytesIO(sent)) as decoded:
        assert decoded.size == (2048, 683) and not decoded.getexif()


def test_analyze_speaks_the_messages_api_too(people):
    member = people["member"]
    photo = _stored(member, "square.png", png())
    key = _key(member)

    with model_api(
        lambda body, index: anthropic_text("A square.", usage=(500, 5)), protocol="anthropic"
    ) as server:
        seen = _ok(member, "analyzeImage", {"fileId": photo.pk}, key)

    assert seen["answer"] == "A square."
    [image, question] = server.requests[0]["messages"][0]["content"]
    assert image["type"] == "image" and image["source"]["media_type"] == "image/png"
    assert question["type"] == "text" and seen["costMicroUsd"] == _spent(key)[0] > 0


def test_analyze_refuses_what_is_not_an_image_and_a_missing_model(people, settings):
    member = people["member"]
    notes = _stored(member, "notes.txt", b"words")
    broken = _stored(member, "broken.png", b"\x89PNG\r\n\x1a\n not really")
    photo = _stored(member, "photo.png", png())
    key = _key(member)

    with model_api() as server:
        assert "not an image" in _refused(member, "analyzeImage", {"fileId": notes.pk}, key)
        assert "could not be read as an image" in _refused(member, "analyzeImage", {"fileId": broken.pk}, key)
        assert "question" in _refused(member, "analyzeImage", {"fileId": photo.pk, "question": ""}, key)
        assert "API key" in _refused(member, "analyzeImage", {"fileId": photo.pk})
        assert server.requests == []
    with model_api(GATEWAY_MODEL_VISION_NAME="unpriced-model"):
        assert "has no price" in _refused(member, "analyzeImage", {"fileId": photo.pk}, key)
    settings.GATEWAY_MODEL_BACKEND = ""
    assert "no model backend is configured" in _refused(member, "analyzeImage", {"fileId": photo.pk}, key)
    assert _spent(key) == (0, 0)


def test_analyze_reads_only_what_the_caller_may_see(people, acme):
    photo = _stored(people["member"], "private.png", png(), visibility="private")

    with model_api() as server:
        for person in (people["viewer"], _colleague("colleague-image@acme.example")):
            assert "was not found" in _refused(person, "analyzeImage", {"fileId": photo.pk}, _key(person))
        nobody = person_without("platform.view", email="no-platform-image@acme.example")
        with pytest.raises(ToolNotFound):
            call(nobody, "analyzeImage", {"fileId": photo.pk})
    assert server.requests == []
    assert ApiKey.objects.filter(spent_micro_usd__gt=0).count() == 0
