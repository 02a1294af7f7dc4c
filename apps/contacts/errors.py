from typing import Any

from django.utils.translation import gettext as _

from apps.accounts.errors import PersonNotFound  # noqa: F401  (re-exported)
from apps.core.errors import AppError, Conflict, Forbidden, NotFound, ServiceUnavailable, ValidationFailed


class ContactNotFound(NotFound):
    def __init__(self, contact_id: Any) -> None:
        super().__init__(
            _("Contact %(id)s was not found, or you may not see it. Find the right id with searchContacts.")
            % {"id": contact_id}
        )


class ContactArchived(Conflict):
    code = "CONTACT_ARCHIVED"

    def __init__(self, contact_id: Any) -> None:
        super().__init__(
            _("Contact %(id)s is archived. Restore it with restoreContact first if it is still needed.")
            % {"id": contact_id}
        )


class ContactReadOnly(Forbidden):
    def __init__(self, contact_id: Any) -> None:
        super().__init__(
            _(
                "You can see contact %(id)s but not change it: it is private. Ask its owner to share "
                "it with you with edit access."
            )
            % {"id": contact_id}
        )


class InvalidContact(ValidationFailed):
    """A field value the contact cannot take; `details` names the field."""


class CreditCheckUnavailable(ServiceUnavailable):
    code = "CREDIT_CHECK_UNAVAILABLE"


class CreditCheckNotConfigured(AppError):
    code = "CREDIT_CHECK_NOT_CONFIGURED"
    http_status = 409
    message = _(
        "Credit checks are not set up for this workspace: no credit bureau is configured. Tell the user "
        "that an administrator must connect a credit bureau first; do not retry."
    )
