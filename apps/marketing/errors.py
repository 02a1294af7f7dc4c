"""The Marketing area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, Forbidden, ValidationFailed


class CampaignState(Conflict):
    code = "MARKETING_CAMPAIGN_STATE"
    msg_format = _("Campaign {id} is {status}: {what} only a campaign that is {allowed}.")


class NoPostalAddress(ValidationFailed):
    code = "MARKETING_NO_POSTAL_ADDRESS"
    message = _(
        "Every marketing e-mail carries the sender's postal address, and the workspace has none: an "
        "administrator sets it in Settings → Marketing first. Nothing was sent."
    )


class NoRecipients(ValidationFailed):
    code = "MARKETING_NO_RECIPIENTS"
    msg_format = _(
        "Campaign {id} would reach nobody: of {members} contacts in its segment, none may get it "
        "({skipped}). See who and why with previewSegmentContacts. Nothing was sent."
    )


class NoSegment(ValidationFailed):
    code = "MARKETING_NO_SEGMENT"
    msg_format = _("Campaign {id} has no segment to send to: give it one with updateMarketingCampaign.")


class NoSenderMailbox(ValidationFailed):
    code = "MARKETING_NO_MAILBOX"
    msg_format = _(
        "Campaign {id} has no mailbox to send from: connect one in the Email Inbox area, then give its "
        "id as mailboxId with updateMarketingCampaign."
    )


class AgentMayNotLaunch(Forbidden):
    code = "MARKETING_AGENT_MAY_NOT_LAUNCH"
    msg_format = _(
        "Campaign {id}'s autonomy is manual: a person launches it in Settings → Marketing, not an agent. "
        "A person may allow agents with setCampaignAutonomy."
    )


class SegmentInUse(Conflict):
    code = "MARKETING_SEGMENT_IN_USE"
    msg_format = _(
        "Segment {id} is the audience of campaign {campaign} ({status}); give that campaign another "
        "segment or delete it first."
    )


# --- content, social posting, landing pages and designs --------------------------------------------


class ContentState(Conflict):
    code = "MARKETING_CONTENT_STATE"
    msg_format = _("Content {id} is {status}: {what}")


class ContentNowhereToPublish(ValidationFailed):
    code = "MARKETING_CONTENT_NOWHERE"
    msg_format = _("Content {id} ({type}) is not published: {why} Nothing was published.")


# --- e-mail sequences, plans and the model calls (apps.marketing.sequences, plans, proposals) ----


class SequenceState(Conflict):
    code = "MARKETING_SEQUENCE_STATE"
    msg_format = _("E-mail sequence {id} is {status}: {what} only a sequence that is {allowed}.")


class SequenceNotReady(ValidationFailed):
    code = "MARKETING_SEQUENCE_NOT_READY"
    msg_format = _("E-mail sequence {id} cannot be activated: {problem}. Nothing was changed.")


class NobodyToEnroll(ValidationFailed):
    code = "MARKETING_NOBODY_TO_ENROLL"
    msg_format = _(
        "Nobody was enrolled in e-mail sequence {id}: of {members} contacts, none may be ({skipped}). "
        "Nothing was changed."
    )


class MarketingModelNotConfigured(AppError):
    code = "MARKETING_MODEL_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "{tool}: no model is configured ({problem}); an administrator sets one in the service's "
        "environment (ATRIUM_GATEWAY_MODEL_BACKEND, ATRIUM_GATEWAY_MODEL_URL, ATRIUM_GATEWAY_MODEL_NAME). "
        "Nothing was charged or changed."
    )


class MarketingModelNeedsApiKey(AppError):
    code = "MARKETING_MODEL_NEEDS_API_KEY"
    http_status = 403
    msg_format = _(
        "{tool} calls a model paid from an API key's budget, and this connection has no API key: connect "
        "with a personal access token and an API key. Nothing was changed."
    )


class MarketingModelCallFailed(AppError):
    code = "MARKETING_MODEL_CALL_FAILED"
    http_status = 502
    msg_format = _(
        "{tool}: the model gave no usable answer ({problem}); nothing was changed. Try again later."
    )
