"""A normal call of createProviderMeeting, for the catalogue's contract test: Jitsi configured."""

from datetime import timedelta
from typing import Any

from django.test import override_settings
from django.utils import timezone

from apps.catalogue.testing import Sample, sample
from apps.meetings.tests.factories import JITSI


@sample("createProviderMeeting")
def create_provider_meeting(actor: Any) -> Sample:
    starts = (timezone.now() + timedelta(days=1)).replace(microsecond=0).isoformat()
    return Sample(
        {
            "title": "Harbour review 4417",
            "startsAt": starts,
            "participants": [{"email": "ana@harbour.example"}],
        },
        around=lambda: override_settings(**JITSI),
    )
