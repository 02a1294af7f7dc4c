"""Social posting's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import AppError, Conflict, NotFound, ValidationFailed


class NoSocialAccount(Conflict):
    code = "SOCIAL_NOT_CONNECTED"
    msg_format = _(
        "No social account is connected to this workspace, so nothing was posted. An administrator "
        "connects a Mastodon or Bluesky account in Settings → Social accounts."
    )


class SocialAccountNotFound(NotFound):
    code = "SOCIAL_ACCOUNT_NOT_FOUND"
    msg_format = _(
        "Social account {id} is not connected to this workspace; listSocialAccounts names the connected ones."
    )


class SocialPostNotFound(NotFound):
    code = "SOCIAL_POST_NOT_FOUND"
    msg_format = _("Social post {id} was not found in this workspace.")


class SocialPostNotChangeable(Conflict):
    code = "SOCIAL_POST_NOT_CHANGEABLE"
    msg_format = _("Social post {id} is {state}: only a scheduled post is changed or cancelled.")


class SocialTextInvalid(ValidationFailed):
    code = "SOCIAL_TEXT_INVALID"
    field = "text"
    msg_format = _("{problem} Nothing was posted or scheduled.")


class SocialTextEmpty(SocialTextInvalid):
    problem_format = _("The post has no text and no link.")


class SocialTextTooLong(SocialTextInvalid):
    problem_format = _(
        "The post is {length} {unit} long, and {network} takes at most {limit}: shorten it by {over}."
    )


class SocialTimeInvalid(ValidationFailed):
    code = "SOCIAL_TIME_INVALID"
    field = "at"
    msg_format = _("{problem} Nothing was scheduled.")


class SocialTimePast(SocialTimeInvalid):
    problem_format = _("{at} is in the past: give a time to come, or post now.")


class SocialAccountInvalid(ValidationFailed):
    code = "SOCIAL_ACCOUNT_INVALID"
    msg_format = _("{problem} Nothing was connected.")


class SocialServerRefused(SocialAccountInvalid):
    problem_format = _("The server address is refused: {why}")


class SocialAlreadyConnected(SocialAccountInvalid):
    problem_format = _("{handle} on {network} is already connected.")


class SocialProviderRefused(AppError):
    """The network answered with a 4xx: the request itself is wrong (credential, text); a retry
    would fail the same way."""

    code = "SOCIAL_PROVIDER_REFUSED"
    http_status = 502
    msg_format = _("{network} refused it ({problem}). Nothing was posted.")


class SocialAccountNameTooLong(SocialProviderRefused):
    """What the server says the account is, kept whole or not at all."""

    msg_format = _(
        "{network} named the account with more than {count} characters; it was not connected. "
        "Nothing was posted."
    )


class SocialProviderUnavailable(AppError):
    """The network could not be reached, answered 5xx or asked to slow down (429): worth a retry."""

    code = "SOCIAL_PROVIDER_UNAVAILABLE"
    http_status = 503
    msg_format = _("{network} is unavailable just now ({problem}). Try again later.")
