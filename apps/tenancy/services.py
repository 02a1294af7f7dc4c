"""Creating, migrating and removing workspaces."""

import contextlib
import logging
import math
import re
import shutil
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Count
from django.utils.text import slugify
from django_tenants.utils import get_tenant_base_schema, schema_context, schema_exists

from apps.core import permissions, servers
from apps.core.db import connection
from apps.core.errors import FieldsInvalid
from apps.tenancy import cloning, errors, signals, spares
from apps.tenancy.models import Domain, Workspace

logger = logging.getLogger(__name__)

SCHEMA_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
RESERVED_SCHEMAS = {"public", "information_schema", settings.TENANT_BASE_SCHEMA}
# A host name (RFC 1123 labels) or an IPv4 address; no port, no scheme.
HOST_NAME = re.compile(
    r"^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
)


def schema_name_for(name: str) -> str:
    base = slugify(name).replace("-", "_")[:50] or "workspace"
    if not base[0].isalpha():
        base = f"w_{base}"
    candidate, suffix = base, 2
    while candidate in RESERVED_SCHEMAS or Workspace.objects.filter(schema_name=candidate).exists():
        candidate, suffix = f"{base}_{suffix}", suffix + 1
    return candidate


def _normalise_domains(domains: list[str]) -> list[str]:
    cleaned = []
    for raw in domains:
        domain = raw.strip().lower().rstrip(".")
        if not HOST_NAME.match(domain):
            raise errors.NotAHostName(domain=raw, details={"domains": [raw]})
        if domain in cleaned:
            continue
        cleaned.append(domain)
    if not cleaned:
        raise errors.NoDomain(details={"domains": []})
    taken = list(Domain.objects.filter(domain__in=cleaned).values_list("domain", flat=True))
    if taken:
        raise errors.DomainsInUse(domains=", ".join(taken), details={"domains": taken})
    return cleaned


def workspace_create(
    *,
    name: str,
    domains: list[str],
    owner_email: str,
    schema_name: str | None = None,
    brand_name: str | None = None,
    time_zone: str = "UTC",
    installed_areas: list[str] | None = None,
    owner_password: str | None = None,
    database: str | None = None,
) -> Workspace:
    """Creates a workspace by cloning the migrated base schema, with its domains and its owner,
    on the database server `database` (default: the least loaded, `least_loaded_server`).

    All of it happens in one transaction: a failure leaves neither a row nor a schema behind. (On
    a server other than the primary, two: the schema's, committed first, then the row's in the
    primary's public schema; a failure between them leaves an unused schema, never a row without
    its schema.)
    """
    name = name.strip()
    if not name:
        raise errors.NoName(details={"name": []})
    try:
        validate_email(owner_email)
    except ValidationError as error:
        raise errors.OwnerEmailInvalid(details={"owner_email": error.messages}) from error
    domains = _normalise_domains(domains)
    if database is None:
        database = least_loaded_server()
    elif database not in servers.known():
        raise errors.ServerUnknown(server=database, details={"database": [database]})
    if schema_name is None:
        schema_name = schema_name_for(name)
    elif not SCHEMA_NAME.match(schema_name) or schema_name in RESERVED_SCHEMAS:
        raise errors.SchemaNameInvalid(schema=schema_name, details={"schema_name": [schema_name]})
    elif Workspace.objects.filter(schema_name__iexact=schema_name).exists() or schema_exists(schema_name):
        raise errors.SchemaTaken(schema=schema_name, details={"schema_name": [schema_name]})

    workspace = Workspace(
        schema_name=schema_name,
        name=name,
        brand_name=(brand_name or name).strip(),
        time_zone=time_zone,
        installed_areas=permissions.optional_area_keys() if installed_areas is None else installed_areas,
        database=database,
    )
    try:
        workspace.full_clean(exclude=["schema_name"])
    except ValidationError as error:
        raise FieldsInvalid.of_django(error) from error

    # The owner's password is hashed (PBKDF2, a few hundred ms of C that releases the GIL) on the
    # other core while the schema is made.
    hashing: Future[str] | None = _hasher().submit(make_password, owner_password) if owner_password else None
    with on_server(database):
        if database != servers.PRIMARY and not schema_exists(get_tenant_base_schema()):
            prepare_server(database)
        ensure_base_schema()
        if database != servers.PRIMARY or not spares.ready():
            cloning.fresh_backend()  # a copy's; a claim's rename is one catalogue change
        with public_transaction(database), transaction.atomic():
            workspace.save(verbosity=0)
            for index, domain in enumerate(domains):
                Domain.objects.create(domain=domain, tenant=workspace, is_primary=index == 0)
            with schema_context(workspace.schema_name):
                signals.workspace_created.send(
                    sender=Workspace,
                    workspace=workspace,
                    owner_email=owner_email,
                    owner_password_hash=hashing.result() if hashing else None,
                )
    logger.info("workspace %s created on %s", workspace.schema_name, database)
    return workspace


def least_loaded_server() -> str:
    """The server a new workspace goes to: the fewest workspaces for its weight
    (settings.ATRIUM_DATABASE_SERVER_WEIGHTS), the primary first among equals."""
    keys = servers.known()
    if len(keys) == 1:
        return keys[0]
    counts = dict(
        Workspace.objects.exclude(schema_name="public")
        .values_list("database")
        .annotate(workspaces=Count("id"))
        .values_list("database", "workspaces")
    )
    weights = servers.weights()

    def load(key: str) -> tuple[float, int]:
        weight = weights[key]
        return (counts.get(key, 0) / weight if weight > 0 else math.inf, keys.index(key))

    return min(keys, key=load)


@contextlib.contextmanager
def on_server(database: str) -> Iterator[None]:
    """The block's default connection on server `database`, whatever schema it sets."""
    if database == servers.PRIMARY:
        yield
        return
    with servers.pinned(database):
        yield


def public_transaction(database: str) -> "contextlib.AbstractContextManager[object]":
    """A transaction on the primary's public schema, for the rows of a workspace whose schema is on
    another server (on the primary, the schema's transaction holds them too)."""
    if database == servers.PRIMARY:
        return contextlib.nullcontext()
    return transaction.atomic(using=servers.public_alias())


def prepare_server(database: str, verbosity: int = 0) -> None:
    """Makes a database server ready to hold workspaces: its public schema migrated (extensions,
    and the tables workspace schemas are made against; the rows of the public-only ones stay on
    the primary) and the template schema new workspaces are copied from. Run again after
    migrations, as the primary is migrated."""
    servers.check_key(database)
    with servers.pinned(database):
        call_command("migrate_schemas", shared=True, interactive=False, verbosity=verbosity)
        migrate_base_schema(verbosity=verbosity)


def server_ready(database: str) -> bool:
    """Whether `prepare_server` has run on the server (its template schema exists)."""
    with on_server(database):
        return bool(schema_exists(get_tenant_base_schema()))


_hashers: list[ThreadPoolExecutor] = []


def _hasher() -> ThreadPoolExecutor:
    if not _hashers:
        _hashers.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="owner-password"))
    return _hashers[0]


def workspace_delete(*, workspace: Workspace) -> None:
    """Removes a workspace: its schema (every record), its domains, and its stored files."""
    if workspace.is_public:
        raise errors.PublicSchemaKept()
    schema_name = workspace.schema_name
    with on_server(workspace.database), public_transaction(workspace.database), transaction.atomic():
        with connection.cursor() as cursor:
            # Deferred foreign-key checks still pending in this transaction would block DROP.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        workspace.delete(force_drop=True)
    media = Path(settings.MEDIA_ROOT) / (settings.MULTITENANT_RELATIVE_MEDIA_ROOT % schema_name)
    shutil.rmtree(media, ignore_errors=True)
    logger.info("workspace %s deleted", schema_name)


def ensure_base_schema(verbosity: int = 0) -> None:
    """Creates the template schema new workspaces are cloned from, if it is missing."""
    base = get_tenant_base_schema()
    if schema_exists(base):
        return
    migrate_base_schema(verbosity=verbosity)


def migrate_base_schema(verbosity: int = 0) -> None:
    """Migrates the template schema on the server the connection is on (made if missing), as
    `migrate_workspaces` does (apps.tenancy.migrating.migrate_template)."""
    from apps.tenancy import migrating

    outcome = migrating.migrate_template(migrating.Migrator(server=servers.current()), verbosity=verbosity)
    if outcome is not None and outcome.error:
        raise RuntimeError(f"the template schema {outcome.schema} was not migrated: {outcome.error}")


def ensure_public_workspace(domains: list[str]) -> Workspace:
    """The public schema's tenant row and its host names (the operators' admin site)."""
    public, _created = Workspace.objects.get_or_create(
        schema_name="public", defaults={"name": "Atrium", "brand_name": "Atrium"}
    )
    for domain in domains:
        domain = domain.strip().lower()
        existing = Domain.objects.filter(domain=domain).first()
        if existing is None:
            Domain.objects.create(domain=domain, tenant=public, is_primary=not public.domains.exists())
        elif existing.tenant_id != public.pk:
            logger.warning("public domain %s already belongs to workspace %s", domain, existing.tenant_id)
    return public
