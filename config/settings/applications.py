"""The project: its paths, applications and tenancy, the request path, language and time."""

from pathlib import Path

from django.utils.translation import gettext_lazy as _

from apps.core import env

BASE_DIR = Path(__file__).resolve().parents[2]
DATA_DIR = Path(env.str("ATRIUM_DATA_DIR", str(BASE_DIR / ".data")))
ATRIUM_VERSION = "0.1.0"

# --- applications -------------------------------------------------------------------------------

# The public schema: workspaces, their domains, service-level records, operators' admin.
SHARED_APPS = [
    "django_tenants",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.admin",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "corsheaders",
    "apps.core",
    "apps.tenancy",
    "apps.accounts",
    "apps.datarights",
    # Sign-in throttling: the operators' admin signs in here (its attempts in the public schema).
    "axes",
]
# Each workspace schema. Apps listed in both get tables in both (users exist on both sides:
# operators in public, workspace people in each workspace). django.contrib.admin is here too so
# that deleting a workspace user never reaches the public admin log through the search path.
TENANT_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.admin",
    "apps.accounts",
    "apps.catalogue",
    "apps.contacts",
    "apps.files",
    "apps.documents",
    "apps.mcp",
    "apps.calendars",
    "apps.departments",
    "apps.groupaccounts",
    "oauth2_provider",
    "apps.oauth",
    "apps.apikeys",
    "apps.gateway",
    "apps.notifications",
    "apps.tasks",
    "apps.accounting",
    "apps.events",
    "apps.mail",
    "apps.deals",
    "apps.support",
    "apps.hr",
    "apps.platform",
    "apps.social",
    "apps.blog",
    "apps.listeners",
    "apps.web",
    "apps.meetings",
    "apps.browser",
    "apps.dialer",
    "apps.travel",
    "apps.travelsearch",
    "apps.integrations",
    "apps.marketing",
    "apps.forms",
    "apps.vaults",
    "apps.mcpgateway",
    "apps.extensions",
    "apps.teams",
    "apps.assistant",
    # Sign-in throttling: a workspace's failed sign-ins are counted in its own schema, so the same
    # e-mail address locked out in one workspace still signs in to another.
    "axes",
]
INSTALLED_APPS = SHARED_APPS + [app for app in TENANT_APPS if app not in SHARED_APPS]

# --- tenancy (apps.tenancy, on django-tenants) --------------------------------------------------

TENANT_MODEL = "tenancy.Workspace"
TENANT_DOMAIN_MODEL = "tenancy.Domain"
# New workspaces are cloned from this migrated schema instead of running every migration.
TENANT_BASE_SCHEMA = "workspace_template"
TENANT_CREATION_FAKES_MIGRATIONS = True
# Django's `migrate`, rendering the migration state only for the migrations a schema runs.
TENANT_BASE_MIGRATE_COMMAND = "apps.tenancy.migrating.MigrateCommand"
# Copies of that schema a worker keeps ready, so creating a workspace renames one instead of copying
# while someone waits (apps.tenancy.spares; 0: no pool, each workspace copied when created).
ATRIUM_SPARE_SCHEMAS = env.int("ATRIUM_SPARE_SCHEMAS", 2, min=0)
# The pool is topped up once no workspace was created for this long (at once below a quarter of it,
# or two): copies would slow a burst of creations down, on the database server's CPU.
ATRIUM_SPARE_FILL_QUIET_SECONDS = env.int("ATRIUM_SPARE_FILL_QUIET_SECONDS", 10, min=0)
# `SET search_path` once per connection and schema, not before every query (django-tenants
# forgets it on set_tenant, close, rollback and savepoint rollback, where PostgreSQL may undo it).
# Measured on the MCP endpoint (bench/RESULTS.md): it halves the round trips of a tool call.
TENANT_LIMIT_SET_CALLS = True
# migrate_workspaces (apps.tenancy.migrating): processes, and schemas handed to each at a time;
# how long a schema's migration waits for a table a request holds before it gives up for this run
# (PostgreSQL's lock_timeout syntax; the next run retries the schema).
TENANT_MULTIPROCESSING_MAX_PROCESSES = env.int("ATRIUM_MIGRATION_PROCESSES", 4, min=1)
TENANT_MULTIPROCESSING_CHUNKS = env.int("ATRIUM_MIGRATION_CHUNKS", 8, min=1)
ATRIUM_MIGRATION_LOCK_TIMEOUT = env.str("ATRIUM_MIGRATION_LOCK_TIMEOUT", "5s")
PUBLIC_SCHEMA_URLCONF = "config.urls_public"
ROOT_URLCONF = "config.urls_tenant"
# Hosts of the public site (operators' admin); `migrate_workspaces` keeps them in the domain table.
ATRIUM_PUBLIC_DOMAINS = env.list("ATRIUM_PUBLIC_DOMAINS", ["admin.localhost"])
# Links made outside a request (file downloads, calendar invitations: apps.tenancy.links) use the
# workspace's primary domain with this scheme and port (empty: the scheme's default).
ATRIUM_SITE_SCHEME = env.str("ATRIUM_SITE_SCHEME", "https")
ATRIUM_SITE_PORT = env.str("ATRIUM_SITE_PORT", "")

# The client portal (apps.accounts.portal, apps.platform.portal): where its people land once signed
# in, the paths they may reach, and the records that may be shared with them (by their share tools).
ATRIUM_PORTAL_HOME = "/portal/"
ATRIUM_PORTAL_PATHS = ("/portal/", "/accounts/sign-out/", "/static/")
ATRIUM_PORTAL_ITEMS = ("documents.Document", "files.File")

# --- the request path ---------------------------------------------------------------------------

MIDDLEWARE = [
    # First, so that every response gets the Content-Security-Policy (security.py), the page for a
    # host no workspace owns included.
    "csp.middleware.CSPMiddleware",
    "apps.tenancy.middleware.WorkspaceMiddleware",
    # Development's debug page for an unknown URL lists every route: the project's 404 instead.
    "apps.core.views.UnknownUrlMiddleware",
    "apps.core.observability.RequestRouteMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Once the person is known: their time zone (else the workspace's) for the page's times.
    "apps.core.times.TimeZoneMiddleware",
    # A client portal person reaches the portal's pages and signing out, nothing else.
    "apps.accounts.portal.PortalConfinementMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a sign-in refused for too many failures into the
    # lockout page (apps.accounts.throttle).
    "axes.middleware.AxesMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.core.context_processors.atrium",
            ],
            # Without a `{% load %}`: the `when` filter (one format for every time shown) and the
            # pages' components (apps/core/templatetags/pages.py).
            "builtins": ["apps.core.templatetags.atrium", "apps.core.templatetags.pages"],
        },
    },
]

# `{{ form }}` renders the house way on every page (apps/core/forms.py), not Django's default.
FORM_RENDERER = "apps.core.forms.AtriumFormRenderer"

ASGI_APPLICATION = "config.asgi.application"

# --- language and time --------------------------------------------------------------------------

LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English"))]
# What the server keeps and logs in; pages show times in the person's zone (apps.core.times).
TIME_ZONE = "UTC"
# Django's own date and time formats follow the pages' one format (config/formats/en/formats.py).
FORMAT_MODULE_PATH = ["config.formats"]
USE_I18N = True
USE_TZ = True
