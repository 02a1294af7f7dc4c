"""Personal data of the tool-call log (docs/privacy.md).

The log is the workspace's security record: an erasure keeps the rows (tool, outcome, time) but
cuts them from the person: no user, no credential label, no client name (which the person chose).
"""

from apps.catalogue.models import ToolCall
from apps.core import privacy

privacy.register(ToolCall, user="user", erase={"user": None, "credential": "", "client": ""})
