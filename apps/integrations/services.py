"""Saving and clearing a workspace's own value of a provider setting, and testing a provider."""

import logging

from django.conf import settings
from django.utils.translation import gettext_lazy as _

from apps.core import encryption, outbound
from apps.integrations import api
from apps.integrations.errors import SettingInvalid, UnknownIntegration, UnknownProvider
from apps.integrations.models import ProviderSetting

logger = logging.getLogger(__name__)

MAX_LENGTH = 500


def field_of(name: str) -> api.Field:
    for integration in api.integrations():
        for field in integration.fields():
            if field.setting == name:
                return field
    raise UnknownIntegration(name=name[:100])


def _checked(field: api.Field, value: str) -> str:
    def refused(problem: object) -> SettingInvalid:
        return SettingInvalid(label=str(field.label), name=field.setting, problem=str(problem))

    value = value.strip()
    if not value:
        raise refused(_("a value is needed (Reset goes back to the server's setting)."))
    if len(value) > MAX_LENGTH:
        raise refused(_("it is longer than %(most)d characters.") % {"most": MAX_LENGTH})
    if any(char.isspace() or ord(char) < 32 for char in value):
        raise refused(_("it must not contain spaces or control characters."))
    if field.choices and value not in field.choices:
        raise refused(_("it is one of %(choices)s.") % {"choices": ", ".join(field.choices)})
    if field.url:
        if not value.lower().startswith(("http://", "https://")):
            raise refused(_("it must be an http(s) address."))
        try:
            outbound.check_url(value, noun=str(field.label), allow_loopback=settings.WEBHOOKS_ALLOW_LOOPBACK)
        except outbound.UnsafeUrl as unsafe:
            raise refused(unsafe.message) from None
    return value


def setting_save(*, name: str, value: str) -> ProviderSetting:
    """Keeps the workspace's own value of `name` (encrypted), checked first: nothing is saved
    when it is refused."""
    field = field_of(name)
    value = _checked(field, value)
    last4 = value[-4:] if field.secret and len(value) >= 12 else ""
    row, _created = ProviderSetting.objects.update_or_create(
        name=field.setting, defaults={"sealed": encryption.encrypt(value), "last4": last4}
    )
    logger.info("provider setting %s saved for the workspace", field.setting)
    return row


def setting_reset(*, name: str) -> None:
    """Back to the server's value of `name`."""
    field = field_of(name)
    ProviderSetting.objects.filter(name=field.setting).delete()
    logger.info("provider setting %s reset to the server's", field.setting)


def provider_test(*, area: str, provider: str) -> api.Outcome:
    """One cheap request to the provider (or a check without network), in plain words."""
    for integration in api.integrations():
        if integration.area == area:
            for candidate in integration.providers:
                if candidate.key == provider:
                    outcome = candidate.test()
                    logger.info(
                        "integration test of %s/%s: %s", area, provider, "ok" if outcome.ok else "failed"
                    )
                    return outcome
    raise UnknownProvider(area=area[:40], provider=provider[:40])
