"""The test settings plus the transport's stand-in credential scheme and the catalogue's fixture
tools the transport's tests call."""

from config.settings.test import *  # noqa: F403
from config.settings.test import INSTALLED_APPS

INSTALLED_APPS = [*INSTALLED_APPS, "apps.mcp.tests.support"]
ATRIUM_EXTRA_TOOL_MODULES = ["apps.mcp.tests.fixture_tools"]
