"""`notifications/tools/list_changed` on the open streams when someone's tool list changes, and
revoked credentials, and those of people whose role changed, dropped by every web process, and
so are the routes and workspaces they keep when a workspace or its host names change.

The catalogue sends `tool_list_changed(schema_name, user_ids)` in the process that changed a
role, a person's role or a workspace's installed areas (user_ids None: everyone there). Once
the change is committed, every live session of those people gets the notification on its GET
stream, whichever web process holds it (`streams.publish`), and so does each of their
`subscriptions/listen` streams (2026-07-28, which have no session: `streams.list_changed`).
"""

import logging
from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django_tenants.utils import schema_context

from apps.catalogue.signals import tool_list_changed
from apps.core.credentials import credentials_revoked
from apps.mcp import endings, protocol, sessions, streams
from apps.mcp.access import forget_principals
from apps.tenancy.models import Domain, Workspace

logger = logging.getLogger(__name__)

LIST_CHANGED = protocol.notification("notifications/tools/list_changed")


def notify_tools_changed(*, schema_name: str, user_ids: list[int] | None) -> int:
    """Sends list_changed to the live sessions of these people (None: the whole workspace).
    Returns how many sessions were told."""
    with schema_context(schema_name):
        digests = sessions.live_sessions(user_ids=user_ids)
    for digest in digests:
        streams.publish(digest, LIST_CHANGED)
    # And the 2026-07-28 listen streams, which belong to no session.
    streams.list_changed(schema_name, user_ids)
    return len(digests)


def on_tool_list_changed(sender: Any, *, schema_name: str, user_ids: list[int] | None, **kwargs: Any) -> None:
    # A credential cached in this process carries the person's old role: drop it now, again once
    # committed (a request in between would keep the old role again), and in every other web
    # process through the revoked-credentials channel: a role taken away, or a person
    # deactivated, must not stay good there until the cache's TTL runs out. A workspace's areas
    # (user_ids None) are not part of a cached credential: nothing to tell the others.
    forget_principals(user_ids=user_ids, schema_name=schema_name)

    def send() -> None:
        forget_principals(user_ids=user_ids, schema_name=schema_name)
        if user_ids:
            endings.tell_revoked(schema_name, user_ids)
        try:
            notify_tools_changed(schema_name=schema_name, user_ids=user_ids)
        except Exception:
            # The change itself stands; clients see it at their next tools/list.
            logger.exception("could not send tools/list_changed for %s", schema_name)

    transaction.on_commit(send)


tool_list_changed.connect(on_tool_list_changed, dispatch_uid="apps.mcp.list_changed")


def on_credentials_revoked(sender: Any, *, schema_name: str, user_ids: list[int], **kwargs: Any) -> None:
    # Dropped now, and again once the revocation is committed: a request of theirs in between
    # would have kept the credential again, still good in its eyes. Then every other process.
    forget_principals(user_ids=user_ids, schema_name=schema_name)

    def tell() -> None:
        forget_principals(user_ids=user_ids, schema_name=schema_name)
        endings.tell_revoked(schema_name, user_ids)

    transaction.on_commit(tell)


credentials_revoked.connect(on_credentials_revoked, dispatch_uid="apps.mcp.credentials_revoked")


@receiver([post_save, post_delete], sender=Domain, dispatch_uid="apps.mcp.domain_changed")
@receiver([post_save, post_delete], sender=Workspace, dispatch_uid="apps.mcp.workspace_changed")
def on_workspace_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
    # This process forgot its routes already (apps.tenancy.signals); the others, which keep them
    # for as long as they are told of changes, hear of it once it is committed.
    # (A host name's workspace is not looked up: it may be going in the same deletion.)
    changed = [instance.schema_name] if isinstance(instance, Workspace) else []
    transaction.on_commit(lambda: endings.tell_workspaces_changed(changed))
