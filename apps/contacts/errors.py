"""The Contacts area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import (
    AppError,
    AreaNotAvailable,
    InTrash,
    NotFound,
    ServiceUnavailable,
    ValidationFailed,
)


class ContactArchived(InTrash):
    """An archived contact (its model's `Access(trash_error=...)`)."""

    code = "CONTACT_ARCHIVED"


class NotArchived(ValidationFailed):
    msg_format = _("Contact {contact} is not archived; there is nothing to restore.")


class NotAnOrganisation(ValidationFailed):
    msg_format = _("Contact {contact} is a person; key contacts belong to organisations.")


class HealthNeedsSomething(ValidationFailed):
    message = _(
        "Give a status, a score or a note (or reset: true to go back to the health computed from activity)."
    )


class NoAddressToMatch(ValidationFailed):
    msg_format = _(
        "Contact {contact} has no e-mail address, so no e-mails can be matched to it. Add one with "
        "updateContact first."
    )


class DuplicateNotFound(NotFound):
    msg_format = _(
        "Possible duplicate {conflict} was not found, or you may not see both contacts. getContact lists a "
        "contact's open possible duplicates."
    )


class NotLinked(NotFound):
    msg_format = _("Contact {contact} is not linked here.")


class KindNotInstalled(AreaNotAvailable):
    msg_format = _(
        "{title} are not available in this workspace (the {title} area is not installed), so no {kind} can "
        "be linked or listed. Tell the user; do not retry."
    )


class NoAttachmentAreas(AreaNotAvailable):
    message = _(
        "Neither the Documents nor the Files area is installed in this workspace, so a contact has no "
        "attachments to show. Tell the user; do not retry."
    )


class SearchTooLong(ValidationFailed):
    msg_format = _("A search is at most {most} characters long.")


class SearchWithNul(ValidationFailed):
    message = _("A search cannot hold a NUL character.")


# Credit checks (apps.contacts.credit).


class CreditCheckUnavailable(ServiceUnavailable):
    """The credit bureau could not answer; nothing was recorded."""

    code = "CREDIT_CHECK_UNAVAILABLE"


class BureauUnreachable(CreditCheckUnavailable):
    message = _("The credit bureau could not be reached; nothing was charged. Try again in a few minutes.")


class BureauRefusedCredentials(CreditCheckUnavailable):
    message = _(
        "The credit bureau refused this workspace's credentials. Tell the user that an administrator must "
        "fix the credit bureau settings; do not retry."
    )


class BureauDown(CreditCheckUnavailable):
    msg_format = _("The credit bureau is unavailable (HTTP {status}); nothing was recorded. Try again later.")


class BureauUnreadable(CreditCheckUnavailable):
    message = _("The credit bureau answered something unreadable; nothing was recorded. Try again later.")


class NoCreditFile(NotFound):
    message = _(
        "The credit bureau has no file on this contact. Check the name, address and country (and, for an "
        "organisation, its registration number in data.registrationNumber)."
    )


class SubjectUnclear(ValidationFailed):
    """`reason`: what the bureau said was missing."""

    msg_format = _(
        "The credit bureau needs more to identify this contact: {reason}. Complete the contact "
        "(updateContact) and try again."
    )


class CreditCheckNotConfigured(AppError):
    code = "CREDIT_CHECK_NOT_CONFIGURED"
    http_status = 409
    message = _(
        "Credit checks are not set up for this workspace: no credit bureau is configured. Tell the user "
        "that an administrator must connect a credit bureau first; do not retry."
    )
