"""The Notifications area's failures (apps.core.errors): each names the problem and what to do next."""

from django.utils.translation import gettext_lazy as _

from apps.core.errors import Forbidden, ValidationFailed


class OthersWatchers(Forbidden):
    message = _("You may list only your own watchers (or the watchers of one record).")


class SinceAfterUntil(ValidationFailed):
    message = _("`since` must be before `until`.")


class IdsOrAllUnread(ValidationFailed):
    message = _("Give notificationIds, or allUnread: true (not both).")


class AllUnreadAction(ValidationFailed):
    message = _("allUnread works with action read or archive.")


class WatcherOrRecord(ValidationFailed):
    message = _("Give watcherId, or entityType and entityId (not both).")


class NotWatching(ValidationFailed):
    msg_format = _("You do not watch {entity_type} {entity_id}; nothing to stop.")
