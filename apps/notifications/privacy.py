"""Personal data of notifications (docs/privacy.md).

A person's notifications and watchers are theirs. Notifications and watchers about a record that
is about a person (a contact) name that person in their titles: they go with that person's data
too. Notifications a person sent others are the recipients' (the sender link is set to null when
the sender is erased).
"""

from django.db.models import Q, QuerySet

from apps.core import privacy
from apps.core.kinds import links_about_person
from apps.notifications.models import Notification, Watcher


def _notifications(subject: privacy.Subject) -> QuerySet:
    mine = Q(recipient=subject.user) if subject.user is not None else Q(pk__in=[])
    return Notification.objects.filter(mine | links_about_person(subject.email))


def _watchers(subject: privacy.Subject) -> QuerySet:
    mine = Q(user=subject.user) if subject.user is not None else Q(pk__in=[])
    return Watcher.objects.filter(mine | links_about_person(subject.email))


privacy.register(Notification, find=_notifications)
privacy.register(Watcher, find=_watchers)
