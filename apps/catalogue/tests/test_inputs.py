"""apps.catalogue.inputs: the request state a call's first round hands the client is good for
that very call only, unaltered and in time; the answers must be objects."""

import pytest

from apps.catalogue import inputs

CALL = inputs.Binding(
    tool="wipeContact", person="7", credential="pat:3", arguments=inputs.arguments_digest({"name": "Ada"})
)


def test_a_state_comes_back_with_its_data():
    opened = inputs.unseal(inputs.seal({"round": 2}, CALL), CALL)

    assert opened.data == {"round": 2}
    assert opened.nonce and opened.expires > 0


def test_two_states_of_the_same_call_have_their_own_nonce():
    assert (
        inputs.unseal(inputs.seal(None, CALL), CALL).nonce
        != inputs.unseal(inputs.seal(None, CALL), CALL).nonce
    )


@pytest.mark.parametrize(
    "other",
    [
        inputs.Binding("eraseEverything", "7", "pat:3", CALL.arguments),
        inputs.Binding("wipeContact", "8", "pat:3", CALL.arguments),
        inputs.Binding("wipeContact", "7", "pat:4", CALL.arguments),
        inputs.Binding("wipeContact", "7", "pat:3", inputs.arguments_digest({"name": "Bob"})),
    ],
)
def test_a_state_is_refused_for_another_tool_person_credential_or_arguments(other):
    with pytest.raises(inputs.InvalidRequestState, match="another call"):
        inputs.unseal(inputs.seal({}, CALL), other)


@pytest.mark.parametrize(
    "change", [lambda s: s + "x", lambda s: "A" + s[1:], lambda s: s.replace(".", ""), lambda s: 12]
)
def test_an_altered_state_is_refused(change):
    with pytest.raises(inputs.InvalidRequestState):
        inputs.unseal(change(inputs.seal({"round": 1}, CALL)), CALL)


def test_an_expired_state_is_refused(settings):
    settings.ATRIUM_CONFIRMATION_TTL_SECONDS = -1

    with pytest.raises(inputs.InvalidRequestState, match="expired"):
        inputs.unseal(inputs.seal({}, CALL), CALL)


def test_answers_must_be_objects():
    assert inputs.checked_responses(None) == {}
    assert inputs.checked_responses({"a": {"action": "accept"}}) == {"a": {"action": "accept"}}
    for wrong in ([], "x", {"a": 12}, {"a": None}):
        with pytest.raises(inputs.InvalidInputResponses):
            inputs.checked_responses(wrong)


def test_true_or_false_is_not_taken_for_a_number(people):
    from apps.catalogue.testing import call, text_of

    answer = call(
        people["admin"],
        "createEvent",
        {
            "name": "Launch",
            "startsAt": "2031-05-01T09:00",
            "endsAt": "2031-05-01T17:00",
            "timeZone": "UTC",
            "capacity": True,
        },
    )

    assert answer["isError"] and "must be a number, not true or false" in text_of(answer)
