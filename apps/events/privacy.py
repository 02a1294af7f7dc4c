"""Personal data in Events (docs/privacy.md).

A person's events are those they own: private ones are trashed then erased, workspace ones stay
as the workspace's records with no owner. An attendee is found by e-mail address, with every row
about them: their needs (special-category data), travel plan, room allocations. A speaker and a
supplier's contact are found by e-mail too (a supplier stays, without the address). Shares with
the person are erased; imports they committed keep their counts without them. An erased attendee's
place on an event still to come goes to the first on its waitlist, as if they had cancelled.
"""

from django.db.models import QuerySet
from django.utils import timezone

from apps.core import privacy, sharing
from apps.events import services
from apps.events.models import (
    Attendee,
    AttendeeImport,
    AttendeeNeeds,
    BudgetLine,
    Event,
    EventPipeline,
    EventShare,
    HotelBlock,
    RoomAllocation,
    Session,
    Speaker,
    Stage,
    Supplier,
    TravelPlan,
)

privacy.register(Event, user="owner", soft_delete=sharing.trash_private, erase=sharing.erase_owned, order=50)
privacy.register(EventShare, user="user")


def _erase_attendees(rows: QuerySet[Attendee]) -> int:
    holding = rows.filter(status__in=services.TAKING_A_PLACE).values("event_id")
    freed = list(Event._base_manager.filter(pk__in=holding, ends_at__gt=timezone.now()))
    _total, per_model = rows.delete()
    for event in freed:
        services.promote_waitlist(event)
    return per_model.get(Attendee._meta.label, 0)


privacy.register(Attendee, email="email", erase=_erase_attendees, order=40)
privacy.register(AttendeeNeeds, email="attendee__email")
privacy.register(TravelPlan, email="attendee__email")
privacy.register(RoomAllocation, email="attendee__email")
privacy.register(Speaker, email="email")
privacy.register(Supplier, email="email", erase={"email": ""})
privacy.register(AttendeeImport, user="committed_by", erase={"committed_by": None})
privacy.not_personal(EventPipeline, reason="names of the workspace's planning pipelines")
privacy.not_personal(Stage, reason="names of pipeline stages")
privacy.not_personal(Session, reason="titles, times and rooms of an agenda (speakers: Speaker)")
privacy.not_personal(HotelBlock, reason="hotel contracts of an event")
privacy.not_personal(BudgetLine, reason="costs of an event")
