"""Calendar events through the Platform's import and export tools (apps.calendars.transfer):
events exported as each person sees them (an event of another person's private calendar absent)
with their times in their own zone, an import checked by row and column then committed once
(times read in the row's zone, on the named calendar or the importer's own, attendees invited),
an event already there a duplicate, a role that may not add events refused."""

import csv
import io
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from django.utils import timezone
from openpyxl import load_workbook

from apps.calendars.models import Event
from apps.calendars.tests.factories import CalendarFactory, EventFactory
from apps.catalogue.testing import ok, person_without, refused
from apps.core.records import Visibility
from apps.files import api as files
from apps.files.models import File
from apps.platform.models import DataImport
from apps.platform.tests.test_export_tools import eager_tasks  # noqa: F401 (a fixture)
from apps.platform.tests.test_transfer_tools import _commit, _validate


def _exported(user, kind, query=""):
    answer = ok(user, "exportDataCsv", {"entityType": kind, "query": query})
    return list(csv.DictReader(io.StringIO(answer["csvText"])))


def test_events_are_exported_as_each_person_sees_them_in_their_zone(people):
    member, owner = people["member"], people["owner"]
    team = CalendarFactory(owner=owner, name="Xfercal Team", time_zone="Asia/Tokyo")
    secret = CalendarFactory(owner=owner, name="Xfercal Secret", visibility=Visibility.PRIVATE)
    EventFactory(
        organizer=owner,
        calendar=team,
        title="Xfercal Standup",
        start="2031-03-10T09:30",
        location="=cmd",
        attendees=[{"email": member.email}, {"email": "guest@xfercal.example"}],
    )
    EventFactory(
        organizer=owner,
        calendar=team,
        title="Xfercal Offsite",
        start="2031-04-01",
        all_day=True,
        end="2031-04-02",
    )
    EventFactory(organizer=owner, calendar=secret, title="Xfercal Private")

    mine = {row["title"]: row for row in _exported(member, "calendar_event", "Xfercal")}
    theirs = {row["title"]: row for row in _exported(owner, "calendar_event", "Xfercal")}

    assert set(mine) == {"Xfercal Standup", "Xfercal Offsite"}
    assert set(theirs) == {"Xfercal Standup", "Xfercal Offsite", "Xfercal Private"}
    standup = mine["Xfercal Standup"]
    assert (standup["start"], standup["timeZone"], standup["calendarName"]) == (
        "2031-03-10T09:30:00+09:00",
        "Asia/Tokyo",
        "Xfercal Team",
    )
    assert standup["location"] == "'=cmd" and standup["organizerEmail"] == owner.email
    assert standup["attendees"] == f"{member.email}; guest@xfercal.example"
    offsite = mine["Xfercal Offsite"]
    assert (offsite["start"], offsite["end"], offsite["allDay"]) == ("2031-04-01", "2031-04-02", "true")


def test_an_import_is_checked_by_row_and_column_then_committed_once(people):
    member = people["member"]
    CalendarFactory(owner=people["owner"], name="Xfercal Hidden", visibility=Visibility.PRIVATE)
    team = CalendarFactory(owner=member, name="Xfercal Imports", time_zone="Europe/Paris")
    day = (timezone.now() + timedelta(days=30)).date()
    held = EventFactory(organizer=member, calendar=team, title="Xfercal Held", start=f"{day}T08:00")
    before = Event.objects.count()
    text = (
        "title,start,end,timeZone,calendarName,attendees,allDay,durationMinutes\n"
        f"Xfercal Review,{day}T15:00,,America/Chicago,Xfercal Imports,"
        "a@xfercal.example; b@xfercal.example,,90\n"  # 2: fine
        f"Xfercal Holiday,{day},{day},,,,true,\n"  # 3: all day on the importer's own calendar
        f"Xfercal Bad,{day}T10:00,{day}T09:00,,Xfercal Imports,,,\n"  # 4: ends before it starts
        f"Xfercal Zone,{day}T10:00,,Mars/Base,Xfercal Imports,,,\n"  # 5: time zone
        f"Xfercal Nowhere,{day}T10:00,,,Xfercal Hidden,,,\n"  # 6: a calendar the member does not see
        f"Xfercal Guests,{day}T10:00,,,Xfercal Imports,not-an-address,,\n"  # 7: attendees
        f"xfercal review,{day}T15:00:00,,America/Chicago,xfercal imports,,,30\n"  # 8: repeats row 2
        f"Xfercal Held,{day}T08:00,,,Xfercal Imports,,,\n"  # 9: on the calendar already
    )

    plan = _validate(member, text, kind="calendar_event")

    assert (plan["rows"], plan["toImport"], plan["invalidRows"], plan["duplicateRows"]) == (8, 2, 4, 2)
    assert {(p["row"], p["column"]) for p in plan["problems"]} == {
        (4, "end"),
        (5, "timeZone"),
        (6, "calendarName"),
        (7, "attendees"),
    }
    assert [(d["row"], d["ofRow"], d["existingId"]) for d in plan["duplicates"]] == [
        (8, 2, None),
        (9, None, held.pk),
    ]
    assert Event.objects.count() == before

    first = _commit(member, plan["token"], skipInvalidRows=True)
    again = _commit(member, plan["token"], skipInvalidRows=True)

    review = Event.objects.get(title="Xfercal Review")
    holiday = Event.objects.get(title="Xfercal Holiday")
    assert first["createdIds"] == again["createdIds"] == [review.pk, holiday.pk] and again["alreadyCommitted"]
    chicago = datetime.fromisoformat(f"{day}T15:00").replace(tzinfo=ZoneInfo("America/Chicago"))
    assert (review.calendar, review.time_zone, review.starts_at, review.ends_at - review.starts_at) == (
        team,
        "America/Chicago",
        chicago.astimezone(UTC),
        timedelta(minutes=90),
    )
    assert sorted(review.attendees.values_list("email", flat=True)) == [
        "a@xfercal.example",
        "b@xfercal.example",
    ]
    assert (holiday.calendar.owner, holiday.calendar.is_default, holiday.all_day) == (member, True, True)
    assert holiday.ends_at - holiday.starts_at == timedelta(days=1)
    assert Event.objects.count() == before + 2


def test_a_role_that_may_not_add_events_may_not_import_them_nor_one_that_may_not_see_them_export(people):
    text = "title,start\nXfercal No,2031-01-01T10:00\n"

    blind = person_without("calendars.view", email="no-calendars-view@acme.example")
    assert "permission" in refused(blind, "exportDataCsv", {"entityType": "calendar_event"})
    person = person_without("calendars.edit", email="no-calendars-edit@acme.example")
    assert "permission" in refused(
        person, "validateDataImport", {"entityType": "calendar_event", "csvText": text}
    )
    assert not Event.objects.filter(title="Xfercal No").exists()
    assert not DataImport.objects.filter(created_by=person).exists()


def test_an_xlsx_export_in_the_background_reads_the_events_as_its_requester_sees_them(
    people,
    eager_tasks,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    owner = people["owner"]
    secret = CalendarFactory(owner=owner, name="Xferbg Secret", visibility=Visibility.PRIVATE)
    EventFactory(organizer=owner, calendar=CalendarFactory(owner=owner), title="Xferbg Open")
    EventFactory(
        organizer=owner, calendar=secret, title="Xferbg Closed", attendees=[{"email": "x@xferbg.example"}]
    )

    with django_capture_on_commit_callbacks(execute=True):
        started = ok(
            people["member"],
            "requestDataExport",
            {"entityType": "calendar_event", "format": "xlsx", "query": "Xferbg"},
        )
    done = ok(people["member"], "getDataExportStatus", {"exportId": started["exportId"]})

    assert (done["status"], done["totalRows"]) == ("done", 1)
    sheet = load_workbook(io.BytesIO(files.file_bytes(File.objects.get(pk=done["file"]["fileId"])))).active
    header, *body = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert [row[header.index("title")] for row in body] == ["Xferbg Open"]
