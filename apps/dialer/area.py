"""The Agent Dialer area, as the rest of the service knows it (apps.core.areas): calls and text
messages agents place through a Twilio-compatible provider, the do-not-call list, pronunciations."""

from django.utils.translation import gettext_lazy as _

from apps.core import areas, env
from apps.core.navigation import NavItem
from apps.dialer.permissions import DialerPerm

area = areas.declare(
    title=_("Agent Dialer"),
    catalogue_title="Agent Dialer",
    group=areas.Group.WORK,
    description=_("Phone calls and text messages placed by agents, with the do-not-call list"),
    words="phone telephone call dial sms text twilio voicemail",
    hints={
        "makeCall": (
            "phone ring dial someone customer supplier tell remind them by telephone outbound voice"
        ),
        "endCall": "hang up cancel cut off an outgoing phone call ringing or in progress",
        "getCallDetail": "how long call lasted duration cost price answered by person machine",
        "searchCallLogs": (
            "call history log list past calls texts sms by number status failed busy unanswered date"
        ),
        "manageDoNotCall": (
            "do not call list dnc opt out blocked phone number is it on the list check whether listed"
        ),
        "sendSms": "sms text message mobile cell phone",
    },
    profiles={
        "phone": (
            "getDialerSummary",
            "makeCall",
            "endCall",
            "leaveVoicemail",
            "sendSms",
            "getCallDetail",
            "searchCallLogs",
            "manageDoNotCall",
            "savePronunciation",
        )
    },
    nav=[NavItem("dialer", _("Dialer"), "dialer:dialer", DialerPerm.VIEW, order=26)],
    not_kinds={
        "dialer.Call": "a call placed through the provider, read through getCallDetail and searchCallLogs",
        "dialer.Message": "a text message, read through searchCallLogs",
        "dialer.DoNotCall": "a number never to call, checked before each call (manageDoNotCall)",
        "dialer.Pronunciation": "how the voice says a term (savePronunciation), not a record to follow",
    },
    settings={
        # A Twilio account (or a SignalWire project): its id and auth token; without them, every
        # tool but getDialerSummary answers DIALER_NOT_CONFIGURED.
        "ATRIUM_DIALER_ACCOUNT_SID": env.str("ATRIUM_DIALER_ACCOUNT_SID", ""),
        "ATRIUM_DIALER_AUTH_TOKEN": env.str("ATRIUM_DIALER_AUTH_TOKEN", ""),
        # Where the REST API 2010-04-01 is: SignalWire's is https://<space>.signalwire.com/api/laml.
        "ATRIUM_DIALER_API_URL": env.str("ATRIUM_DIALER_API_URL", "https://api.twilio.com"),
        # The country a number without +<country code> is read in (ISO 3166 code).
        "ATRIUM_DIALER_DEFAULT_REGION": env.str("ATRIUM_DIALER_DEFAULT_REGION", "US"),
        # Calls and text messages only from this hour to that one at the callee's location (TCPA).
        "ATRIUM_DIALER_CALLING_START": env.int("ATRIUM_DIALER_CALLING_START", 8, min=0, max=23),
        "ATRIUM_DIALER_CALLING_END": env.int("ATRIUM_DIALER_CALLING_END", 21, min=1, max=24),
        # The TwiML <Say> voice (Polly.Joanna, alice...); empty: the provider's default.
        "ATRIUM_DIALER_VOICE": env.str("ATRIUM_DIALER_VOICE", ""),
        "ATRIUM_DIALER_TIMEOUT_SECONDS": env.int("ATRIUM_DIALER_TIMEOUT_SECONDS", 10, min=1),
    },
)
