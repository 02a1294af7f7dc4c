"""Settings every environment shares. Environments differ only through environment variables.

The environment modules (local, test, production, bench) start with `from .base import *`. This
module gathers the parts, one per concern; a part that needs another's setting imports it by
name, so no part depends on the order below. Environment variables are read through
apps.core.env, whose docstring has the naming rule.
"""

from apps.core import env as _env

from .api import *  # noqa: F403  (DRF, the OpenAPI schema, API keys)
from .applications import *  # noqa: F403  (paths, apps, tenancy, request path, language)
from .areas import *  # noqa: F403  (settings of one workspace area each, until areas declare them)
from .catalogue import *  # noqa: F403  (extra tool modules, the tool-call log)
from .celery import *  # noqa: F403  (broker, queues, the beat schedule)
from .datarights import *  # noqa: F403
from .gateway import *  # noqa: F403
from .mcp import *  # noqa: F403
from .oauth import *  # noqa: F403  (and CORS)
from .observability import *  # noqa: F403  (metrics, probes, logs)
from .security import *  # noqa: F403  (secret key, hosts, people, cookies, encryption keys)
from .services import *  # noqa: F403  (PostgreSQL, Redis, file storage, e-mail)


# The untyped helpers this module had before apps.core.env, for settings modules that still import
# them from here (tests/settings_live_mail.py). New code calls apps.core.env.
def env(name: str, default: str = "") -> str:
    return _env.str(name, default)


env_bool = _env.bool
env_list = _env.list

# `from .base import *` hands on the settings alone, so that an environment module's own `env`
# (the module apps.core.env) is not replaced by the old helper above.
__all__ = [name for name in dir() if name.isupper()]
