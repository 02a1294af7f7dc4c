"""The Video Meeting area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError


class MeetingsNotConfigured(AppError):
    code = "MEETINGS_NOT_CONFIGURED"
    http_status = 503
    msg_format = _(
        "createProviderMeeting is not configured: the provider chosen ({provider!r}) needs {setting}. An "
        "administrator sets ATRIUM_MEETINGS_PROVIDER (jitsi or zoom) and, for Jitsi Meet, "
        "ATRIUM_MEETINGS_JITSI_DOMAIN (with ATRIUM_MEETINGS_JITSI_APP_ID and "
        "ATRIUM_MEETINGS_JITSI_APP_SECRET for signed links), for Zoom ATRIUM_MEETINGS_ZOOM_ACCOUNT_ID, "
        "ATRIUM_MEETINGS_ZOOM_CLIENT_ID and ATRIUM_MEETINGS_ZOOM_CLIENT_SECRET, on Settings → "
        "Integrations or in the service's environment. No meeting was made."
    )


class MeetingProviderFailed(AppError):
    """`problem`: in the service's words, never the provider's."""

    code = "MEETINGS_PROVIDER_FAILED"
    http_status = 502
    msg_format = _("The video meeting provider ({provider}) made no meeting: {problem}. Nothing was changed.")


class MeetingProviderUnreachable(MeetingProviderFailed):
    problem_format = _("it could not be reached ({kind})")


class MeetingProviderHttpError(MeetingProviderFailed):
    problem_format = _("it answered HTTP {status}")


class MeetingProviderKeyRefused(MeetingProviderFailed):
    problem_format = _("it refused the service's credentials (HTTP {status})")


class MeetingProviderNotJson(MeetingProviderFailed):
    problem_format = _("its answer is not the expected JSON")
