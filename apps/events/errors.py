"""The Events area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict, Forbidden, NoExchangeRate, NothingToChange, ValidationFailed


class NeedsNotAllowed(Forbidden):
    message = _("Your role may not record attendees' dietary or accessibility needs; leave `needs` out.")


# Sessions and hotel blocks.


class SessionClash(Conflict):
    """A session would share its room or a speaker with another at the same time."""

    code = "SESSION_CLASH"


class RoomTaken(SessionClash):
    msg_format = _(
        "Room {room!r} is taken by session {session} ({title!r}, {starts} to {ends}); choose another "
        "room or time."
    )


class SpeakerBusy(SessionClash):
    msg_format = _(
        "Speaker {email} already speaks in session {session} ({title!r}) at that time; choose another "
        "time or speaker."
    )


class SpeakerBusyUnseen(SessionClash):
    """The session in the way is in an event the caller may not see: only that there is one."""

    msg_format = _(
        "Speaker {email} already speaks in another session at that time; choose another time or speaker."
    )


class SessionsOutsideEvent(Conflict):
    """The event's new dates would leave sessions of its agenda outside them."""

    code = "SESSIONS_OUTSIDE_EVENT"
    msg_format = _(
        "Sessions {sessions} would fall outside the event's new dates; move them with "
        "updateEventSession or remove them with removeEventSession first."
    )


class CapacityBelowRegistered(Conflict):
    """A capacity lower than the places already taken: who is over it is named."""

    code = "CAPACITY_BELOW_REGISTERED"
    msg_format = _(
        "{taken} people are registered or attended; a capacity of {capacity} would leave these "
        "over it (the last added): {attendees}. Cancel or waitlist them with updateEventAttendee first."
    )


class EventCancelled(Conflict):
    code = "EVENT_CANCELLED"
    msg_format = _("Event {event} is cancelled; nothing more is planned for it.")


class BookedAtTheSameMoment(SessionClash):
    """The database's exclusion constraint refused a session whose clash is gone from sight by
    the time it is looked for (the winner deleted in between)."""

    message = _(
        "Its room or a speaker was booked at that time by a session added at the same moment; choose "
        "another time, room or speaker."
    )


class BlockFull(Conflict):
    """Every room of a hotel block is allocated on a night."""

    code = "HOTEL_BLOCK_FULL"
    msg_format = _(
        "Block {block} ({hotel}, {room_type}) has all {rooms} rooms allocated on {night}; add rooms with "
        "manageEventHotels, share a room, or use another block."
    )


class BlockCannotShrink(BlockFull):
    msg_format = _(
        "{used} rooms are allocated on {night}; the block cannot shrink to {rooms}. Cancel allocations "
        "with allocateEventHotel first."
    )


class BlockRequired(ValidationFailed):
    message = _("Give `block` with the block's details.")


class BlockIdRequired(ValidationFailed):
    msg_format = _("{action}: give blockId.")


class BlockOfAnotherEvent(ValidationFailed):
    msg_format = _("Block {block} is not of event {event}.")


class SupplierOfAnotherEvent(ValidationFailed):
    msg_format = _("Supplier {supplier} is not of event {event}.")


class NoBudgetRate(NoExchangeRate):
    """An amount in another currency than the event's, without the rate to it."""

    msg_format = _(
        "No {source}→{target} rate for {date}: give `rate` (one {source} in {target}) with the amounts, or "
        "enter them in the event's currency."
    )


# Changes that say too little.


class TimesRequired(ValidationFailed):
    message = _("startsAt and endsAt cannot be cleared.")


class NothingToChangeOfAttendee(NothingToChange):
    message = _("Say what to change: changes, needs or sendInvitation.")


class NothingToChangeOfSession(NothingToChange):
    message = _("Say what to change: changes or speakers.")


class NothingToRecord(NothingToChange):
    message = _("Say what to record: status, mode, origin, times or plan.")


class TripNeedsHow(ValidationFailed):
    message = _("A planned trip says how: give `mode` or `plan`.")


# Importing attendees (apps.events.imports).


class ImportUnreadable(ValidationFailed):
    """An attendee list that cannot be read as a table of attendees."""

    code = "IMPORT_UNREADABLE"


class NotCsvOrXlsx(ImportUnreadable):
    msg_format = _(
        "{name!r} is neither a CSV nor an XLSX file; export the list as .csv or .xlsx and upload that."
    )


class NotText(ImportUnreadable):
    msg_format = _("{name!r} is not text in UTF-8 or Windows-1252; save it as UTF-8 CSV.")


class BinaryNotCsv(ImportUnreadable):
    msg_format = _("{name!r} holds binary data, not CSV text.")


class BadCsv(ImportUnreadable):
    """`problem`: what Python's csv module said."""

    msg_format = _("{name!r} is not valid CSV: {problem}.")


class BadXlsx(ImportUnreadable):
    """`kind`: the kind of error openpyxl raised (its text may quote the file)."""

    msg_format = _(
        "{name!r} could not be read as an XLSX workbook ({kind}); save it again from the spreadsheet "
        "program, or export it as CSV."
    )


class NoRows(ImportUnreadable):
    message = _("The file has no rows.")


class NoHeader(ImportUnreadable):
    msg_format = _(
        "The first row must name the columns, with at least an e-mail column (email) and a name (name, "
        "or first name and last name); found: {found}."
    )


class TooManyRows(ImportUnreadable):
    msg_format = _("The file has {rows} rows; one import takes at most {most}. Split it.")


class ImportHandleInvalid(ValidationFailed):
    code = "IMPORT_HANDLE_INVALID"
    message = _(
        "This import handle is unknown, expired (24 hours) or someone else's: run validateAttendeeImport "
        "again and commit the handle it gives."
    )


class ImportFileChanged(ImportHandleInvalid):
    msg_format = _("File {file} changed after it was validated; run validateAttendeeImport again.")
