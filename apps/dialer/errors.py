"""The Agent Dialer area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError


class DialerNotConfigured(AppError):
    code = "DIALER_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "{tool} is not configured: no telephony provider is set ({missing} missing). An administrator "
        "sets ATRIUM_DIALER_ACCOUNT_SID and ATRIUM_DIALER_AUTH_TOKEN (a Twilio account, or a "
        "SignalWire project with ATRIUM_DIALER_API_URL) on Settings → Integrations or in the "
        "service's environment. Nothing was called or sent."
    )


class NumberRefused(AppError):
    """A number the dialer will not reach; `problem` in the service's words."""

    code = "DIALER_NUMBER_REFUSED"
    http_status = 422
    msg_format = _("{number} is not called or texted: {problem}. Nothing was called, sent or charged.")


class NumberOnDoNotCall(NumberRefused):
    problem_format = _("it is on the workspace's do-not-call list ({reason})")


class EmergencyNumber(NumberRefused):
    problem_format = _("it is an emergency number, which agents never call")


class PremiumNumber(NumberRefused):
    problem_format = _("it is a premium-rate or shared-cost number")


class OutsideCallingHours(NumberRefused):
    problem_format = _(
        "it is {local} at the callee's location ({zone}), outside the calling hours {start}:00 to "
        "{end}:00; try again within them"
    )


class CallerIdNotVerified(AppError):
    code = "DIALER_CALLER_ID_NOT_VERIFIED"
    http_status = 422
    field = "callerId"
    msg_format = _(
        "callerId: {number} is not a verified number of the provider account; use one of "
        "getDialerSummary's callerIds ({known})."
    )


class ConsentMissing(AppError):
    code = "DIALER_CONSENT_MISSING"
    http_status = 422
    field = "consent"
    msg_format = _(
        "consent: a call with an artificial (generated) voice needs the callee's prior express "
        'consent; say how and when it was given (for example "written consent on the web form, '
        '2026-03-02"). Nothing was called.'
    )


class CallNotActive(AppError):
    code = "DIALER_CALL_NOT_ACTIVE"
    http_status = 409
    msg_format = _("Call {id} is {status}: {what} only while the call is queued, ringing or in progress.")


class DialerProviderFailed(AppError):
    """`problem`: in the service's words, never the provider's."""

    code = "DIALER_PROVIDER_FAILED"
    http_status = 502
    msg_format = _("The telephony provider did not {what}: {problem}. Nothing was recorded or charged.")


class DialerProviderUnreachable(DialerProviderFailed):
    problem_format = _("it could not be reached ({kind})")


class DialerProviderHttpError(DialerProviderFailed):
    problem_format = _("it answered HTTP {status} (provider code {provider_code})")


class DialerProviderKeyRefused(DialerProviderFailed):
    problem_format = _("it refused the service's credentials (HTTP {status})")


class DialerProviderNotJson(DialerProviderFailed):
    problem_format = _("its answer is not the expected JSON")
