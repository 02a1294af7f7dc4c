"""A second round of Agent Dialer requests, written from docs/dialer.md (see test_search_quality.py)."""

DEV: list[tuple[str, str | tuple[str, ...]]] = [
    ("give the landlord a ring about the broken heating", "makeCall"),
    ("get the agent to telephone the dentist and confirm Tuesday", "makeCall"),
    ("cut the call off, it's going nowhere", "endCall"),
    ("cancel the outgoing call before they pick up", "endCall"),
    ("if the answering machine picks up, say we'll call back", "leaveVoicemail"),
    ("message the technician by SMS with the gate code", "sendSms"),
    ("shoot a quick text to Maria's cell that I'm running late", "sendSms"),
    ("what was the price of the call to Berlin", "getCallDetail"),
    ("list every call that failed or was busy this month", "searchCallLogs"),
    ("how much have we spent on phone calls so far", ("getDialerSummary", "searchCallLogs")),
    ("this person asked us to stop calling them, block their number", "manageDoNotCall"),
    ("show everyone on the do-not-call register", "manageDoNotCall"),
    ("the voice should say SQL as sequel", "savePronunciation"),
    ("which numbers are we allowed to call from", "getDialerSummary"),
]
