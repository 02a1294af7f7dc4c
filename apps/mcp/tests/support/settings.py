"""The test settings plus the transport's stand-ins (a credential scheme, a dispatcher)."""

from config.settings.test import *  # noqa: F403
from config.settings.test import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "apps.mcp.tests.support"]
MCP_DISPATCHER = "apps.mcp.tests.support.dispatcher"
