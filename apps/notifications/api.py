"""The Notifications area's public module: how other areas tell people of what happened
(docs/notifications.md). Nothing else of apps.notifications is theirs to import.

No permission of the actor is needed to be told of something: `notify(recipient=, title=, ...)`
tells one person (`kind` one of `Kind`, `priority` one of `Priority`), `entity_changed(...)` every
watcher of a record, `watch` / `unwatch` / `watchers_of` keep who watches it. Everything runs in
the caller's transaction.
"""

from apps.notifications.models import Notification
from apps.notifications.services import entity_changed, notify, unwatch, watch, watchers_of

__all__ = ["Kind", "Notification", "Priority", "entity_changed", "notify", "unwatch", "watch", "watchers_of"]

Kind = Notification.Kind
Priority = Notification.Priority
