"""Requests for searchTools written blind (fifth round), from the docs and the tools' descriptions."""

DEV = [
    ("what's on my calendar today?", "getCalendarSummary"),
    ("which time zone is the workspace calendar in", "getCalendarSummary"),
    ("any meeting invites I haven't answered yet?", "getCalendarSummary"),
    ("make a shared calendar for the marketing team", "manageCalendar"),
    ("subscribe to the UK school holidays iCal feed", "manageCalendar"),
    ("archive the old 'Project Falcon' calendar", "manageCalendar"),
    ("book a 1:1 with Ruth on Thursday at 2pm for half an hour", "createCalendarEvent"),
    ("put a weekly stand-up in the diary, Mondays 9:30, for 8 weeks", "createCalendarEvent"),
    ("push the board meeting back an hour", "updateCalendarEvent"),
    ("cancel tomorrow's catch-up with Leo", "updateCalendarEvent"),
    ("add Omar to the quarterly planning meeting", "updateCalendarEvent"),
    ("when's my next meting with Harbor Dental?", "searchCalendarEvents"),
    ("what have I got on next week", "searchCalendarEvents"),
    ("find the offsite planning session in March", "searchCalendarEvents"),
    ("when are Priya, Dan and I all free for an hour next week?", "checkAvailability"),
    ("is Ahmed busy Tuesday morning?", "checkAvailability"),
    ("who's accepted the invite for the product review?", "checkEventRsvpStatus"),
    ("has everyone RSVP'd to Friday's lunch?", "checkEventRsvpStatus"),
    ("send the meeting invitation out to all the attendees", "sendCalendarInvite"),
    ("email the updated invite now that the time's changed", "sendCalendarInvite"),
]
