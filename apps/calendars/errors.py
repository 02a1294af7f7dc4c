from django.utils.translation import gettext_lazy as _

from apps.core.errors import Conflict


class EventReadOnly(Conflict):
    """An event the actor sees because they are invited to it, on a calendar they may not change."""

    code = "EVENT_READ_ONLY"
    data_fields = ("id",)
    msg_format = _(
        "You are invited to event {id} but it is on a calendar you may not change; ask its organiser "
        "to change it."
    )
