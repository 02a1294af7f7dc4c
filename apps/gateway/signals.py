"""What the gateway tells the rest of the service.

`conversation_finished` is sent once a conversation's end is committed: resolved, failed
(cancelled included: `error_code` CANCELLED) or expired (removed 24 hours after creation before
it ended). Arguments: `conversation` (the row as it ended; an expired one no longer exists),
`status` ("resolved", "failed" or "expired"), `reply`, `error_code`, `error_message`, and
`schema_name`, the workspace it belongs to (a receiver that queues work passes it on, as
`apps.core.tasks.workspace_task` wants). Receivers are called robustly: one that fails is logged
and changes nothing of the conversation. apps.gateway.handover listens, to finish task steps.
"""

from django.dispatch import Signal

conversation_finished = Signal()
