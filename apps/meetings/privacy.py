"""Personal data in Video meetings (docs/privacy.md): the meetings a person made go with them, and
each participant's row (their address and name) with that participant."""

from apps.core import privacy
from apps.meetings.models import Meeting, Participant

privacy.register(Meeting, user="created_by")
privacy.register(Participant, email="email")
