"""Personal data in marketing (docs/privacy.md): a campaign is its owner's like a deal (kept
without them on erasure); a recipient's row and their clicks are found by their address and erased
with them (the mail app's suppression list keeps their objection, by digest). Consent is about a
contact and goes with the contact."""

from django.db.models import QuerySet

from apps.core import privacy
from apps.marketing.models import (
    BrandKit,
    Campaign,
    Click,
    Consent,
    ContentItem,
    MarketingSettings,
    Segment,
    Send,
)


def _clicks(subject: privacy.Subject) -> QuerySet[Click]:
    if not subject.email:
        return Click.objects.none()
    return Click.objects.filter(send__email__iexact=subject.email)


privacy.register(Campaign, user="owner", erase={"owner": None}, order=40)
privacy.register(Click, find=_clicks, order=10)
privacy.register(Send, email="email", order=20)
privacy.not_personal(Consent, reason="about a contact: erased with the contact")
privacy.not_personal(Segment, reason="rules on contact fields")
privacy.not_personal(MarketingSettings, reason="the workspace's postal address and rules for marketing mail")
privacy.register(ContentItem, user="owner", erase={"owner": None}, order=40)
privacy.not_personal(BrandKit, reason="the workspace's colours, fonts, logos and voice")
