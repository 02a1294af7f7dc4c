"""The Platform area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import ValidationFailed


class UnknownCountry(ValidationFailed):
    field = "country"
    msg_format = _(
        "{country!r} is not a country: give its ISO 3166 code (DE, DEU or 276) or its English name."
    )


class UnknownRegion(ValidationFailed):
    field = "region"
    msg_format = _("{region!r} is not a region; the regions are: {known}.")


class NoTaxIds(ValidationFailed):
    field = "country"
    msg_format = _("No tax or identity numbers of {country} are checked here; validateTaxId knows {known}.")


class UnknownTaxIdKind(ValidationFailed):
    field = "kind"
    msg_format = _("{kind!r} is not a number checked for {country}; its kinds are: {known}.")


class NoHolidays(ValidationFailed):
    field = "country"
    msg_format = _("The public holidays of {country} are not known here.")


class UnknownSubdivision(ValidationFailed):
    field = "subdivision"
    msg_format = _(
        "{subdivision!r} is not a subdivision of {country} with holidays of its own; they are: {known}."
    )


class HolidayYearOutOfRange(ValidationFailed):
    field = "year"
    msg_format = _("The public holidays of {country} are known from {first} to {last}, not for {year}.")


class NothingToValidate(ValidationFailed):
    message = _("Give an iban, a bic, or a country with bankCode and accountNumber.")


class UnknownRole(ValidationFailed):
    field = "role"
    msg_format = _("{role!r} is not a role of this workspace; listRoles gives their keys.")


class RoleKeyRequired(ValidationFailed):
    field = "role"
    msg_format = _("Say which role to {action}: its key, from listRoles.")
