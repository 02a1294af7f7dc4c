"""Settings every environment shares. Environments differ only through environment variables.

The environment modules (local, test, production, bench) start with `from .base import *`. This
module gathers the parts, one per concern; a part that needs another's setting imports it by
name, so no part depends on the order below. Environment variables are read through
apps.core.env, whose docstring has the naming rule. A workspace area's own settings are declared
with the area (apps.core.areas: `Area(settings=...)`), not here; an environment module may still
set one.
"""

import typing

from .api import *  # noqa: F403  (DRF, the OpenAPI schema, API keys)
from .applications import *  # noqa: F403  (paths, apps, tenancy, request path, language)
from .catalogue import *  # noqa: F403  (extra tool modules, the tool-call log)
from .celery import *  # noqa: F403  (broker, queues, the beat schedule)
from .datarights import *  # noqa: F403
from .gateway import *  # noqa: F403
from .mcp import *  # noqa: F403
from .oauth import *  # noqa: F403  (and CORS)
from .observability import *  # noqa: F403  (metrics, probes, logs)
from .security import *  # noqa: F403  (secret key, hosts, people, cookies, encryption keys)
from .services import *  # noqa: F403  (PostgreSQL, Redis, file storage, e-mail)

# `from .base import *` hands on the settings alone, so that an environment module's own `env`
# (the module apps.core.env) is not replaced by a part's. mypy cannot read a computed `__all__`
# (django-stubs would then see no setting of ours at all); it is shown every public name instead.
if not typing.TYPE_CHECKING:
    __all__ = [name for name in dir() if name.isupper()]
