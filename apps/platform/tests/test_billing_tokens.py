"""getBillingSummary's tokens: what the model read and wrote for the media tools (transcribeAudio,
analyzeImage, against the gateway's model server on loopback), counted per API key and day by
the keys' ledger when each call is settled, and summed per key and for the period; a call the
model failed counts none; only `platform.admin` reads them."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.apikeys.models import UsageDay
from apps.apikeys.services import api_key_create
from apps.catalogue import dispatch
from apps.catalogue.dispatch import ToolNotFound
from apps.catalogue.testing import call, context_for, ok, principal_for, refused, structured
from apps.core.recurrence import workspace_zone
from apps.files import services as files
from apps.gateway.tests.servers import Reply
from apps.platform.tests.media_models import model_api, png, wav

pytestmark = pytest.mark.django_db


def _keyed(user, key, name, arguments):  # type: ignore[no-untyped-def]
    context = context_for(user)
    context.principal = principal_for(user, api_key_id=key.pk)
    return dispatch.call_tool(context, name, arguments)


def _today() -> str:
    return timezone.now().astimezone(workspace_zone()).date().isoformat()


def test_the_media_tools_tokens_are_counted_per_key_and_period(people):
    member = people["member"]
    key = api_key_create(user=member, label="tokens bot").key
    memo = files.file_create(actor=member, name="memo.wav", content=wav(), visibility="workspace")
    photo = files.file_create(actor=member, name="photo.png", content=png(), visibility="workspace")
    today = _today()
    before = ok(people["admin"], "getBillingSummary", {"start": today, "end": today})

    with model_api():
        structured(_keyed(member, key, "transcribeAudio", {"fileId": memo.pk}))
        structured(_keyed(member, key, "analyzeImage", {"fileId": photo.pk, "question": "What is it?"}))

    answer = ok(people["admin"], "getBillingSummary", {"start": today, "end": today})
    mine = next(entry for entry in answer["keys"] if entry["id"] == key.pk)
    # The media models' scripted usage: 120 in and 11 out for the transcript, 800 and 14 for the image.
    assert (mine["inputTokens"], mine["outputTokens"], mine["modelCalls"]) == (920, 25, 2)
    assert answer["inputTokens"] - before["inputTokens"] == 920
    assert answer["outputTokens"] - before["outputTokens"] == 25
    assert UsageDay.objects.filter(key=key).values_list("input_tokens", "output_tokens").get() == (920, 25)
    # Another period does not count them.
    earlier = (timezone.now().astimezone(workspace_zone()).date() - timedelta(days=40)).isoformat()
    old = ok(people["admin"], "getBillingSummary", {"start": earlier, "end": earlier})
    assert next(entry for entry in old["keys"] if entry["id"] == key.pk)["inputTokens"] == 0


def test_a_failed_model_call_counts_no_tokens(people):
    member = people["member"]
    key = api_key_create(user=member, label="failing bot").key
    photo = files.file_create(actor=member, name="photo.png", content=png(), visibility="workspace")

    with model_api(lambda body, index: Reply(500, {"error": {"message": "down"}})):
        result = _keyed(member, key, "analyzeImage", {"fileId": photo.pk, "question": "What is it?"})

    assert result["isError"] is True
    today = _today()
    mine = next(
        entry
        for entry in ok(people["admin"], "getBillingSummary", {"start": today, "end": today})["keys"]
        if entry["id"] == key.pk
    )
    assert (mine["inputTokens"], mine["outputTokens"], mine["modelCalls"]) == (0, 0, 0)


def test_only_admins_read_the_tokens_and_a_bad_period_is_refused(people):
    with pytest.raises(ToolNotFound):
        call(people["member"], "getBillingSummary", {})
    assert "on or after" in refused(
        people["admin"], "getBillingSummary", {"start": _today(), "end": "2000-01-01"}
    )
