"""Held-out requests for Video Meeting, written from SPEC.md 4.7 and docs/meetings.md before any
search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("set up an online call with the client for Friday and send me the link", "createProviderMeeting"),
    ("make a Jitsi room for the team standup", "createProviderMeeting"),
]
