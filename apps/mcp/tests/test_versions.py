"""apps.mcp.versions: which revision a client gets, and what each one turns on."""

import pytest

from apps.mcp import protocol, versions


@pytest.mark.parametrize(
    ("offered", "answered"),
    [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2026-07-28", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("not a version", "2025-11-25"),
        (None, "2025-11-25"),
    ],
)
def test_an_offered_version_we_speak_is_echoed_and_anything_else_gets_the_latest(offered, answered):
    assert versions.negotiate(offered).version == answered
    assert protocol.negotiate(offered) == answered


def test_the_supported_versions_are_listed_newest_first():
    assert protocol.SUPPORTED_VERSIONS == ("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26")
    assert protocol.PROTOCOL_VERSION == versions.LATEST == protocol.SUPPORTED_VERSIONS[0]
    assert protocol.HANDSHAKE_VERSION == versions.LATEST_HANDSHAKE == "2025-11-25"


def test_the_handshake_revisions_before_2025_11_25_turn_nothing_new_on():
    for version in ("2025-06-18", "2025-03-26"):
        revision = versions.of(version)
        assert not (
            revision.icons
            or revision.resumable_posts
            or revision.scope_step_up
            or revision.elicitation_modes
            or revision.stateless
        )


def test_2026_07_28_is_stateless_and_keeps_what_2025_11_25_brought_but_resumable_posts():
    revision = versions.REVISIONS["2026-07-28"]

    assert revision.stateless and revision.icons and revision.scope_step_up and revision.elicitation_modes
    # Its streams are not resumed with GET and Last-Event-ID: there is no GET.
    assert not revision.resumable_posts
    assert not versions.of("2025-11-25").stateless


@pytest.mark.parametrize(
    ("named", "stateless"),
    [
        ("2026-07-28", True),
        ("2025-11-25", False),
        ("2025-06-18", False),
        ("2027-01-01", False),
        (None, False),
        (7, False),
    ],
)
def test_only_a_stateless_version_a_request_names_makes_it_stateless(named, stateless):
    assert (versions.stateless(named) is not None) == stateless


def test_2025_11_25_turns_on_what_it_brings():
    revision = versions.of("2025-11-25")

    assert (
        revision.icons and revision.resumable_posts and revision.scope_step_up and revision.elicitation_modes
    )
    assert revision.schema_dialect == "https://json-schema.org/draft/2020-12/schema"


def test_a_session_of_a_version_this_process_does_not_know_is_served_as_2025_06_18():
    assert versions.of("2027-01-01").version == "2025-06-18"
    assert versions.of(None).version == "2025-06-18"
    # No session has a stateless revision; were one stored, it would not make the session stateless.
    assert versions.of("2026-07-28").version == "2025-06-18"
