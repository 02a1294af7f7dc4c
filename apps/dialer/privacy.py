"""Personal data in the Agent Dialer (docs/privacy.md): the calls and text messages a person's
agents placed go with them. The do-not-call list and the pronunciations are the workspace's: an
erased person's entries stay (a number on the list must stay on it), without their name."""

from apps.core import privacy
from apps.dialer.models import Call, Callback, DoNotCall, Message, Pronunciation

privacy.register(Call, user="created_by")
privacy.register(Message, user="created_by")
privacy.register(DoNotCall, user="created_by", erase={"created_by": None})
privacy.register(Pronunciation, user="created_by", erase={"created_by": None})
privacy.not_personal(Callback, reason="a digest of a provider callback and the provider's id of a call")
