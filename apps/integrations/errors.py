"""Integrations' failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import NotFound, ValidationFailed


class UnknownIntegration(NotFound):
    code = "INTEGRATION_NOT_FOUND"
    msg_format = _("{name} is not a provider setting this page changes.")


class SettingInvalid(ValidationFailed):
    code = "INTEGRATION_SETTING_INVALID"
    msg_format = _("{label} ({name}): {problem} Nothing was saved.")


class UnknownProvider(NotFound):
    code = "INTEGRATION_PROVIDER_NOT_FOUND"
    msg_format = _("{area}/{provider} is not a provider this page tests.")
