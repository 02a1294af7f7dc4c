"""What people ask for in Calendars, and the tool searchTools should find for it in its first five
(the catalogue's search evaluation, apps/catalogue/tests/test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("put a dentist appointment in my diary next tuesday", "createCalendarEvent"),
    ("book a call with the Harwell team on friday at 3pm for an hour", "createCalendarEvent"),
    ("block out 12 june as a day off on my calendar", "createCalendarEvent"),
    ("set up a monthly review meeting on the first monday of every month", "createCalendarEvent"),
    ("move the weekly standup to 10am", "updateCalendarEvent"),
    ("push the budget review back half an hour and change the room to the boardroom", "updateCalendarEvent"),
    ("cancel just this friday's team lunch, keep the other weeks", "updateCalendarEvent"),
    ("add Priya as an attendee to tomorrow's planning meeting", "updateCalendarEvent"),
    ("who is free on thursday afternoon for a call", "checkAvailability"),
    ("when are Tom and Aisha both free for 45 minutes this week", "checkAvailability"),
    ("is Marco busy on wednesday morning or can I grab him", "checkAvailability"),
    ("has everyone accepted the invite for the offsite", "checkEventRsvpStatus"),
    ("who said they can't make the quarterly review", "checkEventRsvpStatus"),
    (
        "what's on my schedule for the coming days and which invitations haven't I answered",
        "getCalendarSummary",
    ),
    ("which time zone is the workspace in and what time is it there right now", "getCalendarSummary"),
    ("make a new shared calendar for the marketing team, coloured orange", "manageCalendar"),
    ("archive the old recruitment calendar, we don't use it any more", "manageCalendar"),
    ("rename the Sales calendar to Sales EMEA and give it the London time zone", "manageCalendar"),
    ("what meetings do I have with Chen between the 3rd and the 10th", "searchCalendarEvents"),
    ("when is the board meeting in march", "searchCalendarEvents"),
    ("is there anything in the diary about the product launch next month", "searchCalendarEvents"),
    ("email the invitations for friday's workshop to everyone attending", "sendCalendarInvite"),
    ("the kickoff moved, send people the updated invite so their calendars change", "sendCalendarInvite"),
    ("mail the outside guests an ics for the webinar so they can accept or decline", "sendCalendarInvite"),
]
