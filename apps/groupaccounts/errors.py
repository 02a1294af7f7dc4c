from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import NotFound, ValidationFailed


class GroupAccountNotFound(NotFound):
    def __init__(self, account_id: Any) -> None:
        super().__init__(
            _("Group account %(id)s was not found. Find the right id with searchGroupAccounts.")
            % {"id": account_id}
        )


class InvalidGroupAccount(ValidationFailed):
    @classmethod
    def on(cls, field: str, message: str) -> "InvalidGroupAccount":
        return cls(f"{field}: {message}.", details={field: [message]})
