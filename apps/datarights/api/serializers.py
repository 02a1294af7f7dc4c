"""The body of SPEC 2.6, checked field by field (each failure names its field, 422)."""

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pycountry
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from apps.datarights.models import DataRequest

KIND = "data_rights_request"
# language[-Script]-REGION: language ISO 639, script ISO 15924, region ISO 3166-1 alpha-2.
LOCALE_TAG = re.compile(r"^(?P<language>[A-Za-z]{2,3})(?:-(?P<script>[A-Za-z]{4}))?-(?P<region>[A-Za-z]{2})$")
# A clock a little ahead of ours is not a reason to refuse someone's request.
CLOCK_SKEW = timedelta(minutes=5)


class TextField(serializers.CharField):
    """A string, and only a string (DRF's CharField would turn 42 or true into text)."""

    default_error_messages = {"invalid": _("Must be a string.")}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class ChoiceText(serializers.ChoiceField):
    default_error_messages = {
        "invalid_choice": _("Must be one of: %(choices)s."),
        "invalid": _("Must be a string."),
    }

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        if data not in self.choices:
            raise serializers.ValidationError(
                self.error_messages["invalid_choice"] % {"choices": ", ".join(self.choices)},
                code="invalid_choice",
            )
        return data


def parse_locale(value: str) -> str:
    """'en-gb' -> 'en-GB', from ISO's lists (pycountry), or ValidationError."""
    match = LOCALE_TAG.match(value)
    if not match:
        raise serializers.ValidationError(_("Must be a language-REGION tag such as en-GB."), code="format")
    language_code = match["language"].lower()
    language = (
        pycountry.languages.get(alpha_2=language_code)
        if len(language_code) == 2
        else pycountry.languages.get(alpha_3=language_code)
    )
    # BCP 47 uses the two-letter code where ISO 639-1 has one ("en", never "eng").
    if language is None or (len(language_code) == 3 and hasattr(language, "alpha_2")):
        raise serializers.ValidationError(_("The language is not an ISO 639 code."), code="language")
    parts = [language_code]
    if match["script"]:
        script = pycountry.scripts.get(alpha_4=match["script"].title())
        if script is None:
            raise serializers.ValidationError(_("The script is not an ISO 15924 code."), code="script")
        parts.append(script.alpha_4)
    region = pycountry.countries.get(alpha_2=match["region"].upper())
    if region is None:
        raise serializers.ValidationError(_("The region is not an ISO 3166 country code."), code="region")
    parts.append(region.alpha_2)
    return "-".join(parts)


class DataRequestSerializer(serializers.Serializer):
    kind = ChoiceText(choices=[KIND])
    type = ChoiceText(choices=DataRequest.Type.values)
    name = TextField(max_length=200, required=False, allow_blank=True, default="")
    email = serializers.EmailField(max_length=254)
    account = TextField(max_length=200, required=False, allow_blank=True, default="")
    details = TextField(required=False, allow_blank=True, default="", trim_whitespace=False)
    locale = TextField(max_length=16)
    country = TextField(max_length=2, min_length=2)
    received_at = TextField(max_length=40)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        values = super().to_internal_value(data)
        # Something the caller thinks it sent must not be dropped without a word.
        unknown = sorted(set(data) - set(self.fields)) if isinstance(data, dict) else []
        if unknown:
            raise serializers.ValidationError({name: [_("Unknown field.")] for name in unknown})
        return values

    def validate_details(self, value: str) -> str:
        limit = settings.DATA_REQUEST_DETAILS_MAX_LENGTH
        if len(value) > limit:
            raise serializers.ValidationError(
                _("Ensure this field has no more than %(limit)s characters.") % {"limit": limit},
                code="max_length",
            )
        return value

    def validate_email(self, value: str) -> str:
        return value.strip().lower()

    def validate_name(self, value: str) -> str:
        return value.strip()

    def validate_account(self, value: str) -> str:
        return value.strip()

    def validate_locale(self, value: str) -> str:
        return parse_locale(value)

    def validate_country(self, value: str) -> str:
        country = pycountry.countries.get(alpha_2=value.upper()) if value.isalpha() else None
        if country is None:
            raise serializers.ValidationError(_("Must be an ISO 3166 alpha-2 country code such as GB."))
        return country.alpha_2

    def validate_received_at(self, value: str) -> datetime:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise serializers.ValidationError(
                _("Must be an ISO 8601 timestamp such as 2025-01-31T09:30:00Z."), code="format"
            ) from None
        if "T" not in value.upper() or moment.utcoffset() != timedelta(0):
            raise serializers.ValidationError(
                _("Must be a UTC timestamp with its time, ending in Z or +00:00."), code="timezone"
            )
        moment = moment.astimezone(UTC)
        if moment > timezone.now() + CLOCK_SKEW:
            raise serializers.ValidationError(_("Must not be in the future."), code="future")
        return moment
