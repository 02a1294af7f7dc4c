"""Held-out requests for the Agent Dialer, written from SPEC.md 4.7, AREAS.md 2.18 and the task
before any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("ring the plumber and ask when he can come", "makeCall"),
    ("send an SMS reminder about tomorrow's visit", "sendSms"),
    ("stop the call, we reached the wrong person", "endCall"),
    ("what did the agent's phone calls cost this month", ("getDialerSummary", "searchCallLogs")),
    ("never call this number again", "manageDoNotCall"),
    ("record how to say the name Nguyen on calls", "savePronunciation"),
    ("leave a voicemail for the candidate when the machine answers", "leaveVoicemail"),
    ("show the details of the last call: status, duration, who answered", "getCallDetail"),
]
