"""Personal data of the tool-call log (docs/privacy.md).

The log is the workspace's security record: an erasure keeps the rows (tool, outcome, time) but
cuts them from the person: no user, no credential label, no client name (which the person chose).
The export leaves out why a call was refused (`refusal`): it is about the workspace's set-up, not
the person, and telling "no such tool" from "not for your role" would reveal tools the person's
agent is never told of (SPEC 7.2).
"""

from apps.catalogue.models import ToolCall
from apps.core import privacy

privacy.register(
    ToolCall, user="user", exclude=["refusal"], erase={"user": None, "credential": "", "client": ""}
)
