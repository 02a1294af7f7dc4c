"""The requests a person sent are theirs too (docs/privacy.md).

Erasure anonymises a request instead of deleting it: the reference, type, dates, receiving host,
status and the data team's notes stay, as the record that the request was received and handled
(accountability); everything that identifies the requester goes.
"""

from django.utils import timezone

from apps.core import privacy
from apps.datarights.models import DataRequest, PersonalDataOperation

privacy.register(
    DataRequest,
    email="email",
    workspace="workspace",
    exclude=["fingerprint"],
    erase={
        "name": "",
        "email": "",
        "account": "",
        "details": "",
        "fingerprint": "",
        "erased_at": timezone.now,
    },
)
privacy.not_personal(
    PersonalDataOperation,
    reason="what was exported or erased and when: counts per kind of record, never whose",
)
