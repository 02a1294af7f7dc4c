"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("create a video meeting and give me the join link", "createProviderMeeting"),
    ("schedule a Zoom meeting with the supplier tomorrow at 10", "createProviderMeeting"),
    ("add a video call link to my calendar event", "createProviderMeeting"),
    ("start a video conference room for the interview", "createProviderMeeting"),
]
