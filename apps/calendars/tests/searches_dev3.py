"""Requests for searchTools written blind (fourth round), from the docs and the tools' descriptions."""

DEV = [
    ("put 'quarterly tax deadline' on the finance calendar for 31 Jan, all day", "createCalendarEvent"),
    ("I've got a hair appointment thursday 5:30 for 45 mins, add it", "createCalendarEvent"),
    ("schedule a team retro every other Wednesday at 4pm until the end of the year", "createCalendarEvent"),
    (
        "set up an hour's kick-off with the Norland people next Tuesday and invite jo@norland.co",
        "createCalendarEvent",
    ),
    ("shift Thursday's supplier meeting to Friday morning", "updateCalendarEvent"),
    ("can you drop Felix from the design crit invite", "updateCalendarEvent"),
    ("Mei rang to say she can't make the workshop - put her down as declined", "updateCalendarEvent"),
    ("the offsite location is now the Hilton Bristol, update the event", "updateCalendarEvent"),
    ("is everyone on the leadership team free Monday morning for 2 hours", "checkAvailability"),
    (
        "when's the earliest slot this week that both Chloe and Ibrahim have an hour free?",
        "checkAvailability",
    ),
    ("check whether Gustav has anything on between 1 and 3 tomorrow", "checkAvailability"),
    ("who hasn't responded to the invite for the all-hands yet", "checkEventRsvpStatus"),
    ("how many people accepted the calendar invite for Friday's strategy day", "checkEventRsvpStatus"),
    ("send the .ics for next week's training session to all attendees", "sendCalendarInvite"),
    ("re-send the invitation for the product demo to the client, the time changed", "sendCalendarInvite"),
    ("anything booked with the Harlow account in the next fortnight?", "searchCalendarEvents"),
    ("find all the interviews sheduled for December", "searchCalendarEvents"),
    ("diary check: when is the AGM", "searchCalendarEvents"),
    (
        "what's coming up for me the next 3 days and do I have invites waiting to be answered",
        "getCalendarSummary",
    ),
    ("make a private calendar just for my personal stuff", "manageCalendar"),
    ("add the Premier League fixtures ics link as a calendar", "manageCalendar"),
    ("un-archive the Recruiting calendar", "manageCalendar"),
]
