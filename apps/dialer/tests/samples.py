"""A normal call of every Agent Dialer tool, for the catalogue's contract test: the provider is a
loopback server speaking Twilio's REST API."""

from collections.abc import Callable
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.dialer.tests.factories import placed_call, zone_at
from apps.dialer.tests.servers import Twilio, twilio

CALLEE = "+442071838750"


def _provider() -> Any:
    return twilio(Twilio())


@sample("getDialerSummary")
def get_dialer_summary(actor: Any) -> Sample:
    return Sample({}, around=_provider)


@sample("makeCall")
def make_call(actor: Any) -> Sample:
    return Sample(
        {
            "to": CALLEE,
            "script": "Hello, this is Acme about order 5521.",
            "consent": "written consent on the order form, 2026-11-02",
            "calleeTimeZone": zone_at(12),
        },
        around=_provider,
    )


def _knowing(sid: str) -> Callable[[], Any]:
    """The provider, with a call it placed in progress (its sid known)."""

    def around() -> Any:
        served = Twilio()
        served.calls[sid] = {"sid": sid, "status": "ringing", "events": []}
        return twilio(served)

    return around


@sample("endCall")
def end_call(actor: Any) -> Sample:
    call = placed_call(actor, status="ringing", contact_name="Harbour 7713")
    return Sample({"callId": call.pk}, private=["Harbour 7713"], around=_knowing(call.sid))


@sample("leaveVoicemail")
def leave_voicemail(actor: Any) -> Sample:
    call = placed_call(actor, status="ringing", contact_name="Quay 4410")
    return Sample(
        {"callId": call.pk, "message": "Please call us back."}, private=["Quay 4410"], around=_provider
    )


@sample("sendSms")
def send_sms(actor: Any) -> Sample:
    return Sample(
        {"to": CALLEE, "body": "Your parcel shipped.", "calleeTimeZone": zone_at(12)}, around=_provider
    )


@sample("getCallDetail")
def get_call_detail(actor: Any) -> Sample:
    call = placed_call(actor, contact_name="Pier 2290")
    return Sample({"callId": call.pk}, private=["Pier 2290"])


@sample("searchCallLogs")
def search_call_logs(actor: Any) -> Sample:
    placed_call(actor, contact_name="Dock 3381")
    return Sample({"query": "Dock 3381"}, private=["Dock 3381"])


@sample("manageDoNotCall")
def manage_do_not_call(actor: Any) -> Sample:
    return Sample({"action": "add", "number": "+442071838752", "reason": "asked on the phone"})


@sample("savePronunciation")
def save_pronunciation(actor: Any) -> Sample:
    return Sample({"term": "Nguyen", "sayAs": "Win"})
