"""Personal data in marketing (docs/privacy.md): a campaign, an e-mail sequence and a plan are
their owner's like a deal (kept without them on erasure); a recipient's row and their clicks, and a
contact's enrolment in a sequence with its messages, are found by their address and erased with
them (the mail app's suppression list keeps their objection, by digest). Consent is about a
contact and goes with the contact."""

from django.db.models import QuerySet

from apps.core import privacy
from apps.marketing.models import (
    BrandKit,
    Campaign,
    Click,
    Consent,
    ContentItem,
    Conversion,
    DesignAsset,
    EmailSequence,
    Enrollment,
    LandingPage,
    MarketingPlan,
    MarketingSettings,
    Segment,
    Send,
    StepSend,
    Visit,
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

# E-mail sequences and plans: their owner's, kept without them on erasure; a contact's enrolment and
# its messages are found by their address and erased with them.
privacy.register(EmailSequence, user="owner", erase={"owner": None}, order=40)
privacy.register(MarketingPlan, user="owner", erase={"owner": None}, order=40)
privacy.register(StepSend, email="email", order=10)
privacy.register(Enrollment, email="email", order=20)

# Landing pages and designs: their owner's, kept without them on erasure (a published page stays
# up). A conversion names a Form Builder submission and UTM parameters: the submission is the
# Form Builder's to export and erase.
privacy.register(LandingPage, user="owner", erase={"owner": None}, order=40)
privacy.register(DesignAsset, user="owner", erase={"owner": None}, order=40)
privacy.not_personal(Conversion, reason="a form submission's id and the UTM parameters of the visit")
privacy.not_personal(
    Visit,
    reason="a keyed digest of a visitor's address, browser and day (none of them kept) and UTM parameters",
)
