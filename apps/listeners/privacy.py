"""Personal data in Listeners (docs/privacy.md): a person's listeners are theirs (exported with
them, trashed on erasure with their runs, which hold the payloads they acted on)."""

from apps.core import privacy
from apps.listeners.models import FlowVersion, Listener, Run, TriggerEvent

privacy.register(Listener, user="owner", exclude=("webhook_secret", "webhook_token"))
privacy.not_personal(FlowVersion, reason="a listener's steps, erased with it")
privacy.not_personal(Run, reason="a listener's runs, erased with it")
privacy.not_personal(TriggerEvent, reason="what fired a listener, erased with it")
