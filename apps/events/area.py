"""The Events area, as the rest of the service knows it (apps.core.areas)."""

from celery.schedules import crontab
from django.utils.translation import gettext_lazy as _

from apps.core import areas
from apps.core.kinds import Kind, page
from apps.core.navigation import NavItem
from apps.events.permissions import EventsPerm

area = areas.declare(
    title=_("Events"),
    group=areas.Group.WORK,
    description=_(
        "Events on a planning pipeline: agenda, attendees, suppliers, hotel blocks, budget, travel"
    ),
    words="conference summit offsite gala expo congress delegate registration",
    hints={
        "createEventPipeline": "planning board kanban workflow stages for events",
        "moveEventStage": "move an event to the next planning stage confirmed",
        "getEventPlanningOverview": "status of all events we are planning board",
        "createEvent": "organise plan a new conference summit offsite gala for people",
        "getEvent": "what is happening at an event kickoff details agenda speakers",
        "updateEvent": "reschedule change the date venue capacity of an event",
        "listEvents": "which conferences events are coming up upcoming past",
        "searchEvents": "find look up an event conference gala by name venue",
        "openEvent": "show link to an event page",
        "openEvents": "take me to the events page",
        "shareEvent": "give a colleague access co-organise an event",
        "addEventSession": "agenda talk slot keynote workshop speaker room",
        "updateEventSession": "change the time room speaker of a talk keynote workshop on the agenda",
        "removeEventSession": "drop a talk keynote workshop slot from the conference agenda",
        "cancelEvent": "call off the conference gala summit offsite tell the guests delegates",
        "deleteEvent": "conference gala summit offsite made by mistake to the trash",
        "addEventAttendee": "invite register a guest delegate to a conference gala",
        "updateEventAttendee": "cancelled registration waitlist mark attended guest dietary",
        "listEventAttendees": "guest list who is coming registered waitlist",
        "validateAttendeeImport": "check spreadsheet csv excel list of guests before importing",
        "commitAttendeeImport": "import the checked guest spreadsheet csv excel upload",
        "addEventSupplier": "caterer venue av vendor supplier costs quote",
        "manageEventHotels": "hotel rooms contract allotment nights cut-off",
        "allocateEventHotel": "give a guest a hotel room rooming list shared",
        "planEventAttendeeTravel": "flights trains travel arrangements for a guest",
        "analyzeEventBudget": "over budget overspend cost per head attrition exposure",
        "getEventBudgetSummary": "how much an event costs spend planned committed actual",
    },
    profiles={
        "events": (
            "addEventAttendee",
            "addEventSession",
            "addEventSupplier",
            "allocateEventHotel",
            "analyzeEventBudget",
            "cancelEvent",
            "commitAttendeeImport",
            "createEvent",
            "getEvent",
            "getEventBudgetSummary",
            "getEventPlanningOverview",
            "listEventAttendees",
            "listEvents",
            "manageEventHotels",
            "moveEventStage",
            "openEvent",
            "openEvents",
            "planEventAttendeeTravel",
            "removeEventSession",
            "searchEvents",
            "shareEvent",
            "updateEvent",
            "updateEventAttendee",
            "updateEventSession",
            "validateAttendeeImport",
        ),
        # Setting up pipelines and removing events are the workspace organiser's, seldom done.
        "admin": ("createEventPipeline", "deleteEvent"),
    },
    nav=[NavItem("events", _("Events"), "events:list", EventsPerm.VIEW, order=36)],
    kinds=[
        Kind(
            "event",
            "events.Event",
            title="name",
            url=page("events:detail", "event_id"),
            search=("name", "venue", "description"),
        ),
        Kind("event_pipeline", "events.EventPipeline", title="name", search=("name", "description")),
    ],
    not_kinds={
        "events.Session": "a slot of an event's agenda, reached through its event",
        "events.Attendee": "a person on an event's list, reached through its event (listEventAttendees)",
        "events.Supplier": "a supplier of an event, reached through its event",
        "events.HotelBlock": "rooms held for an event, reached through its event",
    },
    periodic={
        # Attendees' needs are special-category data kept only until the event is over.
        "remove-event-needs": areas.Periodic(
            "apps.events.tasks.remove_needs_after_events", crontab(minute=17)
        ),
    },
)
