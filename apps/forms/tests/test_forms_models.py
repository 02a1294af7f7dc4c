"""generateTextFields, generateChoiceFields, generateMediaFields and generateLayoutFields through
the gateway's OpenAI-compatible backend (its scripted model server on loopback), metered against
the caller's API key; without a backend or a key, a clear error and nothing changed."""

from django.test import override_settings

from apps.apikeys.services import api_key_create
from apps.catalogue import dispatch
from apps.catalogue.testing import context_for, principal_for, structured, text_of
from apps.forms.models import FormTemplate
from apps.forms.tests.factories import FormFactory
from apps.forms.tests.forms_models import model_api
from apps.gateway.tests.servers import openai_text


def _call(user, name, arguments, key=None):
    context = context_for(user)
    context.principal = principal_for(user, api_key_id=key.pk if key else None)
    return dispatch.call_tool(context, name, arguments)


def _refused(user, name, arguments, key=None):
    result = _call(user, name, arguments, key)
    assert result["isError"] is True, result
    return text_of(result)


def test_each_kind_adds_only_its_fields_labelled_and_metered(people):
    member = people["member"]
    form = FormFactory(actor=member, title="Job application")
    key = api_key_create(user=member, label="forms tests").key
    with model_api() as server:
        text = structured(
            _call(member, "generateTextFields", {"formId": form.pk, "brief": "contact", "count": 5}, key)
        )
        choice = structured(_call(member, "generateChoiceFields", {"formId": form.pk, "brief": "mood"}, key))
        media = structured(_call(member, "generateMediaFields", {"formId": form.pk, "brief": "a CV"}, key))
        layout = structured(_call(member, "generateLayoutFields", {"formId": form.pk, "brief": "intro"}, key))
    assert [field["type"] for field in text["added"]] == ["phone", "date"], "a kind not asked for is left out"
    assert choice["added"][0]["options"] == ["Very", "Somewhat", "Not"] and choice["added"][0]["aiGenerated"]
    assert media["added"][0]["accept"] == ["application/pdf"] and media["added"][0]["maxSizeMb"] == 5
    assert [field["type"] for field in layout["added"]] == ["heading", "paragraph"]
    assert text["costMicroUsd"] == 200 * 1 + 80 * 2 and text["model"] == "chat-test"
    key.refresh_from_db()
    assert key.spent_micro_usd == 4 * (200 + 160)
    assert "Job application" in server.requests[0]["messages"][-1]["content"]
    draft = FormTemplate.objects.get(pk=form.pk).draft["fields"]
    assert len(draft) == 3 + 2 + 1 + 1 + 2


def test_without_a_model_a_key_or_a_usable_answer_nothing_changes(people):
    member = people["member"]
    form = FormFactory(actor=member)
    before = FormTemplate.objects.get(pk=form.pk).draft
    key = api_key_create(user=member, label="forms tests").key
    with override_settings(GATEWAY_MODEL_BACKEND="", GATEWAY_MODEL_URL=""):
        said = _refused(member, "generateTextFields", {"formId": form.pk, "brief": "contact"}, key)
    assert "no model is configured" in said and "ATRIUM_GATEWAY_MODEL_BACKEND" in said
    with model_api():
        assert "has no API key" in _refused(
            member, "generateTextFields", {"formId": form.pk, "brief": "contact"}
        )
    with model_api(lambda body, index: openai_text("no JSON here", usage=(5, 5))):
        assert "not the JSON object asked for" in _refused(
            member, "generateChoiceFields", {"formId": form.pk, "brief": "moods"}, key
        )
    with model_api() as server:
        assert "'nope' is not a group" in _refused(
            member, "generateTextFields", {"formId": form.pk, "brief": "moods", "group": "nope"}, key
        )
    assert server.requests == [] and FormTemplate.objects.get(pk=form.pk).draft == before
