from typing import Any

from django.utils.translation import gettext as _

from apps.core.errors import NotFound, ValidationFailed


class NotificationNotFound(NotFound):
    def __init__(self, notification_id: Any) -> None:
        super().__init__(
            _(
                "Notification %(id)s was not found among your notifications. listNotifications or "
                "searchNotifications give the ids."
            )
            % {"id": notification_id}
        )


class WatcherNotFound(NotFound):
    def __init__(self, watcher_id: Any) -> None:
        super().__init__(
            _("Watcher %(id)s was not found, or it is not yours. listWatchers gives the ids.")
            % {"id": watcher_id}
        )


class InvalidNotification(ValidationFailed):
    """A value a notification or a watcher cannot take; `details` names the field."""

    @classmethod
    def on(cls, field: str, problem: str) -> "InvalidNotification":
        return cls(f"{field}: {problem}.", details={field: [problem]})
