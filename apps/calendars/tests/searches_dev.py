"""Development search requests for Calendars: written from the area's docs by someone who
has not seen the search, used to improve the search in general ways, and so part of its tuning
part since (docs/catalogue.md, "The measure, in two parts")."""

DEV = [
    ("when are Rosa, Ahmed and me all free for an hour next week?", "checkAvailability"),
    ("find a 30 min gap on Thursday when the design team isn't tied up", "checkAvailability"),
    ("is Sven free tomorrow afternoon", "checkAvailability"),
    ("who's said yes to the quarterly town hall", "checkEventRsvpStatus"),
    ("has anybody declind the offsite planning meeting?", "checkEventRsvpStatus"),
    ("book a dentist appointment in my diary Tuesday at 3pm", "createCalendarEvent"),
    ("put a standup every weekday at 9:15 in the team calendar", "createCalendarEvent"),
    ("schedule lunch with Corinne on the 14th at the Ivy", "createCalendarEvent"),
    ("what's on my agenda over the next few days", "getCalendarSummary"),
    ("which time zone are we in and what calendars can I see", "getCalendarSummary"),
    ("set up a seperate calendar for the marketing team", "manageCalendar"),
    ("subscribe to the UK bank holidays ics feed", "manageCalendar"),
    ("archive the old project calendar nobody uses any more", "manageCalendar"),
    ("whens my next meeting with the auditers", "searchCalendarEvents"),
    ("what have I got on in the week of 3 March", "searchCalendarEvents"),
    ("any appointments with Dr Hale this month?", "searchCalendarEvents"),
    ("email the invites for Friday's review to everyone on it", "sendCalendarInvite"),
    ("send round the updated meeting invitation now the room has changed", "sendCalendarInvite"),
    ("push the 1:1 with Jamal back by an hour", "updateCalendarEvent"),
    ("cancel just next Monday's occurrence of the weekly sync", "updateCalendarEvent"),
    ("add Fatima to the budget review meeting", "updateCalendarEvent"),
    ("Leo told me on the phone he's coming to the kickoff, note that he accepted", "updateCalendarEvent"),
    ("call off the client dinner on thursday", "updateCalendarEvent"),
]
