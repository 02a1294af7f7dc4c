"""Where the doors (the MCP transport, the gateway's agent) meet the catalogue.

The interface is fixed in docs/architecture.md ("MCP transport → catalogue dispatcher"):
`SessionState`, `ToolContext`, `list_tools`, `call_tool`, `server_instructions`, `ToolNotFound`.
Everything here is synchronous (ORM) and runs with the workspace's schema active.

The hot path of `call_tool`: a dict lookup for the tool, a cached set of the tools this role may
use (keyed by workspace, installed areas, role and its last change, scope), pydantic validation
of the arguments against a model built at import, one transaction around the tool, one
serialisation of the result, and an audit entry appended to an in-memory buffer.
"""

import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DatabaseError, transaction
from django.utils import timezone
from pydantic import BaseModel, ValidationError
from pydantic.alias_generators import to_camel

from apps.accounts import otp
from apps.accounts.access import effective_permissions
from apps.catalogue import audit, derived, inputs, policy, profiles, registry
from apps.catalogue.errors import (
    OutcomeUnknown,
    SecureInputUnavailable,
    SentButNotSaved,
    StepUpNotOnGateway,
    StepUpRequired,
)
from apps.catalogue.registry import CONFIRMATION_ARGUMENT, Marker, ToolSpec
from apps.catalogue.secure_input import SecureInputDeclined, SecureInputRequest, SecureInputRequired
from apps.catalogue.shapes import RawResult
from apps.core import onloop, outbound, spending, times
from apps.core.actors import Actor
from apps.core.credentials import Principal
from apps.core.db import connection, database_failure
from apps.core.encoded import Json, PartlyEncoded
from apps.core.errors import AppError
from apps.core.observability import describe_error
from apps.core.origin import Origin, through
from apps.core.permissions import area_title
from apps.core.workspaces import brand, current_workspace

logger = logging.getLogger(__name__)


class ToolNotFound(Exception):
    """No such tool, or not one this principal may use now: the two are told apart nowhere."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"Unknown tool: {name}")


class ScopeTooNarrow(ToolNotFound):
    """A tool the role allows but the credential's scope does not reach (a write tool under
    `mcp:read`). Answered as ToolNotFound wherever a door does not tell the two apart; a door that
    can ask the client to widen its scope (MCP 2025-11-25's step-up) asks for `scope`."""

    def __init__(self, name: str, scope: str) -> None:
        super().__init__(name)
        self.scope = scope


class SessionState(Protocol):
    """Provided by the transport (the gateway: the conversation)."""

    session_id: str

    def get(self, key: str, default: Any = None) -> Any: ...

    def set(self, key: str, value: Any) -> None: ...


class MemorySession:
    """A SessionState held in a dict: for tests and for callers without a stored session."""

    def __init__(self, session_id: str | None = None, data: dict[str, Any] | None = None) -> None:
        self.session_id = session_id or secrets.token_urlsafe(16)
        self.data: dict[str, Any] = dict(data or {})

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: Any) -> None:
        self.data[key] = value


def _never() -> bool:
    return False


@dataclass
class ToolContext:
    principal: Principal
    session: SessionState
    # From `initialize` (e.g. {"elicitation": {}}).
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    # (progress, total, message); None when the request asked for no progress.
    progress: Callable[[float, float | None, str | None], None] | None = None
    # (message, requestedSchema) -> {"action": ..., "content": ...}; None if the client cannot.
    elicit: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None
    is_cancelled: Callable[[], bool] = _never
    request_id: str | int | None = None
    # Which door the call came through ("mcp", "gateway"): histories say an agent made a change
    # (apps.core.origin).
    door: str = "mcp"
    # The client reads 2025-11-25 form questions (defaults, titled and multi-select enums).
    rich_elicitation: bool = False
    # Ends the call's event stream now, the call going on; the client comes back for the rest
    # (2025-11-25 resumable streams). None when the door cannot: then nothing is to be ended.
    close_stream: Callable[[], None] | None = None
    # Doors that ask by answering (MCP 2026-07-28): the client's answers to what an earlier round
    # of this call asked (`inputs`), and the state it echoed back. None: the door asks on a
    # stream instead (`elicit`), or not at all.
    input_responses: dict[str, dict[str, Any]] | None = None
    request_state: Any = None
    # Records a one-time answer (a confirmation) as spent, everywhere: True the first time a
    # nonce is given, False after (for its lifetime in seconds). None: the door keeps no such record
    # and the session state does.
    spend_once: Callable[[str, int], bool] | None = None
    # Set by the dispatcher while a tool runs: the call the request states it issues are for.
    binding: inputs.Binding | None = None
    # Gets a value the person enters on a page of ours, never through the model
    # (apps.catalogue.secure_input); None when the door has no such page.
    secure_input_door: Callable[[SecureInputRequest], str] | None = None
    # The door answers SecureInputRequired itself (MCP 2025-11-25: error -32042); otherwise the
    # call answers a tool error that gives the agent the link.
    raises_secure_input: bool = False
    # The door only sends the answer on (MCP): the structured content is kept as its JSON
    # (apps.core.encoded.Json) and never made into objects.
    answers_as_json: bool = False
    # Set by `call_tool` when it answers: the failed call's error code ("" when it succeeded), for
    # a caller that decides by it (a listener's run retries a failure of the server, not of the call).
    error_code: str = ""

    @property
    def actor(self) -> Actor:
        return self.principal.user

    @property
    def may_write(self) -> bool:
        """The credential reaches write tools (SPEC 5.1): a read-only tool that changes state as a
        side effect (a message marked read) does so only then."""
        return scope_mode(self.principal) == "full"

    @property
    def asks_by_answer(self) -> bool:
        """The door takes `InputRequired` (2026-07-28) rather than a question on a stream."""
        return self.input_responses is not None

    def received_state(self) -> dict[str, Any] | None:
        """The data a previous round of this very call put in its `requestState` (None when the
        client sent none); `inputs.InvalidRequestState` when it sent one that is not that."""
        if self.request_state is None or self.binding is None:
            return None
        return inputs.unseal(self.request_state, self.binding).data

    def declares(self, capability: str) -> bool:
        return capability in (self.client_capabilities or {})

    def secure_input(self, *, purpose: str, message: str, label: str) -> str:
        """The value the person entered for `purpose` (apps.catalogue.secure_input)."""
        request = SecureInputRequest(purpose=purpose, message=message, label=label)
        if self.secure_input_door is None:
            raise SecureInputUnavailable(label=request.label)
        return self.secure_input_door(request)

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        if self.progress is not None:
            self.progress(progress, total, message)

    @property
    def can_elicit(self) -> bool:
        return self.elicit is not None and "elicitation" in (self.client_capabilities or {})


# --- who may use what ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Allowed:
    specs: tuple[ToolSpec, ...]
    names: frozenset[str]


_NOTHING = _Allowed((), frozenset())
_CACHE_LIMIT = 4096
_allowed_cache: dict[tuple[Any, ...], _Allowed] = {}
_listing_cache: dict[tuple[Any, ...], list[dict[str, Any]]] = {}


def scope_mode(principal: Principal) -> str:
    """SPEC 5.1 scopes narrow, never widen: `mcp` or `mcp:write` reach every tool the role
    allows, `mcp:read` only the read-only ones, anything else none."""
    scopes = principal.scopes
    if "mcp" in scopes or "mcp:write" in scopes:
        return "full"
    if "mcp:read" in scopes:
        return "read"
    return "none"


def _access_key(principal: Principal) -> tuple[Any, ...] | None:
    user = principal.user
    workspace = current_workspace()
    if workspace is None or user is None or not getattr(user, "is_authenticated", False):
        return None
    role = getattr(user, "role", None)
    if role is None:
        return None
    # Everything `effective_permissions` depends on, so a change of any of them is a new entry:
    # a role edited (updated_at), a person given another role, areas installed or removed.
    return (
        workspace.schema_name,
        tuple(workspace.installed_areas),
        role.pk,
        role.updated_at,
        bool(user.is_active),
        scope_mode(principal),
        registry.version(),
    )


def _allowed(principal: Principal) -> tuple[tuple[Any, ...] | None, _Allowed]:
    key = _access_key(principal)
    if key is None:
        return None, _NOTHING
    cached = _allowed_cache.get(key)
    if cached is None:
        granted = effective_permissions(principal.user)
        mode = key[5]
        # callTool is usable under the read scope too: the tool it runs is checked again.
        workspace = current_workspace()
        specs = tuple(
            spec
            for spec in registry.all_tools()
            if spec.permission.value in granted
            and (mode == "full" or (mode == "read" and (spec.read_only or spec.runs_tools)))
            and (not spec.areas or (workspace is not None and all(map(workspace.has_area, spec.areas))))
        )
        cached = _Allowed(specs, frozenset(spec.name for spec in specs))
        if len(_allowed_cache) >= _CACHE_LIMIT:
            _allowed_cache.clear()
        _allowed_cache[key] = cached
    return key, cached


def refusal_of(principal: Principal, spec: ToolSpec | None) -> str:
    """Why `principal` may not use `spec` (None: no such tool), for the audit log only (ToolCall
    .Refusal); "" if it may. The caller is answered the same whatever the reason."""
    if spec is None:
        return "unknown_tool"
    user = principal.user
    workspace = current_workspace()
    if (
        workspace is None
        or not getattr(user, "is_authenticated", False)
        or not getattr(user, "is_active", False)
        or getattr(user, "role", None) is None
    ):
        return "no_role"
    if not all(workspace.has_area(area) for area in spec.installed_in):
        return "area_not_installed"
    if spec.permission.value not in effective_permissions(user):
        return "role"
    mode = scope_mode(principal)
    if mode == "none" or (mode == "read" and not (spec.read_only or spec.runs_tools)):
        return "scope"
    return ""


def forget_cached_lists() -> None:
    """Drops the per-role caches (signals call it when roles or areas change; entries are keyed
    so that a change never reuses a stale one, this only frees memory sooner)."""
    _allowed_cache.clear()
    _listing_cache.clear()


def usable_tools(principal: Principal) -> tuple[ToolSpec, ...]:
    return _allowed(principal)[1].specs


def may_use(principal: Principal, name: str) -> bool:
    return name in _allowed(principal)[1].names


# The scope that reaches every tool the role allows (SPEC 5.1).
WRITE_SCOPE = "mcp:write"


def scope_to_ask(principal: Principal, spec: ToolSpec) -> str | None:
    """The scope a client should ask for so that `spec` becomes usable, when only the credential's
    scope stands in the way (a write tool under `mcp:read` that the role allows): the scopes held
    plus `mcp:write`, so the new grant loses nothing. None otherwise."""
    if scope_mode(principal) != "read" or spec.read_only or spec.runs_tools:
        return None
    if _access_key(principal) is None or spec.permission.value not in effective_permissions(principal.user):
        return None
    return " ".join(sorted({*principal.scopes, WRITE_SCOPE}))


# --- the interface ------------------------------------------------------------------------------


def list_tools(
    *,
    principal: Principal,
    toolsets: set[str] | None = None,
    read_only: bool = False,
    profile: str | None = None,
) -> list[dict[str, Any]]:
    """Every tool the principal may use now, in a stable order, as `tools/list` entries.

    `profile` (apps.catalogue.profiles), `toolsets` (area keys) and `read_only` narrow the list
    for clients that cope with few tools;
    the catalogue's own tools (searchTools, describeTool, callTool) stay in it, so the rest can be
    found and run. Narrowing only shortens the list: `call_tool` still accepts every tool the
    principal may use. The entries are shared: do not change them.
    """
    key, allowed = _allowed(principal)
    if key is None:
        return []
    wanted = frozenset(toolsets) if toolsets else None
    # A credential pinned to a profile lists no more than it; a requested profile narrows it.
    chosen = tuple(sorted({name for name in (principal.profile, profile) if name}))
    listing_key = (*key, wanted, read_only, chosen)
    in_profile = frozenset.intersection(*(profiles.tool_names(name) for name in chosen)) if chosen else None
    listing = _listing_cache.get(listing_key)
    if listing is None:
        listing = [
            spec.definition
            for spec in allowed.specs
            if (wanted is None or spec.area in wanted or spec.area == "catalogue")
            and (in_profile is None or spec.name in in_profile)
            and (not read_only or spec.read_only or spec.runs_tools)
        ]
        if len(_listing_cache) >= _CACHE_LIMIT:
            _listing_cache.clear()
        _listing_cache[listing_key] = listing
        # The definitions built for it, for the next process with the same code.
        derived.keep()
    return list(listing)


def call_tool(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Runs one tool for `ctx.principal` and returns an MCP CallToolResult.

    Raises ToolNotFound for a tool that does not exist or that the principal may not use now
    (role, installed area, scope): both answer the same. Every other failure is a result with
    `isError: true` whose text tells the agent what to do next. callTool runs the tool it names
    through this same function (`_call_through`).
    """
    started = time.perf_counter()
    schema_name = connection.schema_name
    spec = registry.get(name) if isinstance(name, str) else None
    if spec is None or not may_use(ctx.principal, name):
        audit.record(
            schema_name=schema_name,
            principal=ctx.principal,
            tool=str(name)[:100],
            outcome="not_found",
            duration_ms=(time.perf_counter() - started) * 1000,
            refusal=refusal_of(ctx.principal, spec),
        )
        scope = scope_to_ask(ctx.principal, spec) if spec is not None else None
        if scope is not None:
            raise ScopeTooNarrow(name, scope)
        raise ToolNotFound(str(name))
    # A time given without an offset, and "today", are the caller's (their zone, else their
    # workspace's), as on their pages: `shapes.aware` and `timezone.localdate()` read this zone.
    with timezone.override(times.person_zone(ctx.actor, current_workspace())):
        if spec.runs_tools:
            return _call_through(ctx, spec, arguments, schema_name, started)
        return _call_audited(ctx, spec, arguments, schema_name, started)


def _call_audited(
    ctx: ToolContext, spec: ToolSpec, arguments: Any, schema_name: str, started: float
) -> dict[str, Any]:
    name = spec.name
    outcome, error_code, result = "failed", "", None
    try:
        outcome, error_code, result = _call(ctx, spec, arguments)
    except SecureInputRequired:
        outcome, error_code = "error", "SECURE_INPUT_REQUIRED"
        raise
    except onloop.ABORTS:
        outcome = ""  # not served here: the call runs again in a thread, and is logged there
        raise
    finally:
        ctx.error_code = error_code
        if outcome:
            audit.record(
                schema_name=schema_name,
                principal=ctx.principal,
                tool=name,
                outcome=outcome,
                error_code=error_code,
                duration_ms=(time.perf_counter() - started) * 1000,
            )
    return result


def _call(ctx: ToolContext, spec: ToolSpec, arguments: Any) -> tuple[str, str, dict[str, Any]]:
    token = None
    if spec.needs_confirmation and isinstance(arguments, dict) and CONFIRMATION_ARGUMENT in arguments:
        arguments = dict(arguments)
        token = arguments.pop(CONFIRMATION_ARGUMENT)
    validated = _validated(spec, arguments)
    if not isinstance(validated, BaseModel):
        return validated
    if ctx.asks_by_answer or ctx.request_state is not None:
        # Only what asks by answering (2026-07-28) seals state to the call (a digest of its arguments).
        ctx.binding = _binding(ctx, spec, validated)

    first = policy.missing_first_call(spec, ctx.session)
    if first is not None:
        return "first_call_required", "", error_result(policy.first_call_message(spec, first))

    if spec.needs_confirmation and spec.confirm_if is not None:
        asks = _asks_confirmation(ctx, spec, validated)
        if isinstance(asks, tuple):
            return asks
    else:
        asks = spec.needs_confirmation
    if asks and Marker.HIGH_RISK in spec.markers:
        missing = _step_up_missing(ctx, spec)
        if missing is not None:
            return "error", missing.code, error_result(_app_error_message(missing))
    if asks:
        try:
            refusal = _confirm(ctx, spec, validated, token)
        except inputs.InputRequired as needed:
            return "confirmation_required", "CONFIRMATION_REQUIRED", input_required_result(ctx, needed)
        if refusal is not None:
            return refusal
    if ctx.is_cancelled():
        return (
            "cancelled",
            "",
            error_result(f"{spec.name} was cancelled before it started; nothing was done."),
        )

    kwargs = {parameter: getattr(validated, parameter) for parameter in spec.parameters}
    called = Origin(door=ctx.door, tool=spec.name, client=ctx.principal.client[:200])
    try:
        with through(called):
            result = _run(ctx, spec, kwargs)
    except inputs.InputRequired as needed:
        # Nothing the tool did stays (its transaction rolled back): it runs again with the answers.
        return "input_required", "", input_required_result(ctx, needed)
    except (inputs.InvalidRequestState, inputs.MissingClientCapability):
        raise  # the door's protocol errors
    except onloop.ABORTS:
        raise  # not served on the event loop: the call runs again in a thread (apps.core.onloop)
    except SecureInputRequired as required:
        if ctx.raises_secure_input:
            raise
        return "error", "SECURE_INPUT_REQUIRED", error_result(required.fallback)
    except SecureInputDeclined:
        return "declined", "", error_result(policy.declined_message(spec, "decline"))
    except AppError as error:
        # What must stand although the call failed (a wrong step-up code counted), now that the
        # call's own writes are undone.
        otp.keep_standing(error)
        return "error", error.code, error_result(_app_error_message(error))
    except DjangoValidationError as error:
        return "error", "VALIDATION_ERROR", error_result(" ".join(error.messages) + " Nothing was changed.")
    except ObjectDoesNotExist:
        return "error", "NOT_FOUND", error_result(NOT_FOUND_MESSAGE)
    except DatabaseError as error:
        failure = database_failure(error)
        if failure is not None and failure.is_conflict:
            # A concurrent call saved the same thing first (a unique key), or won a deadlock twice:
            # the caller only has to read again. Logged by SQLSTATE and constraint: PostgreSQL's
            # text quotes the row. Any other refusal (NOT NULL, a foreign key) is this write's own
            # fault: a failure on the server, below.
            logger.warning("tool %s answered CONFLICT: %s", spec.name, describe_error(error))
            return "error", "CONFLICT", error_result(_conflict_message(spec))
        reference = secrets.token_hex(4)
        # The traceback says where; the log formatters leave the error's text out (it quotes the
        # statement and the row: apps.core.observability.describe_error).
        description = describe_error(error)
        logger.error(
            "tool %s: database error %s (reference %s)", spec.name, description, reference, exc_info=True
        )
        return "failed", "DATABASE", error_result(_failure_message(spec, reference))
    except Exception:
        reference = secrets.token_hex(4)
        logger.exception("tool %s failed (reference %s)", spec.name, reference)
        return "failed", "INTERNAL", error_result(_failure_message(spec, reference))

    if spec.is_first_call:
        policy.note_first_call(spec, ctx.session)
    answer = success_result(result, as_json=ctx.answers_as_json)
    too_long = _too_long(spec, answer)
    if too_long is not None:
        return ("error" if spec.read_only else "ok"), "RESULT_TOO_LONG", too_long
    return "ok", "", answer


def _step_up_missing(ctx: ToolContext, spec: ToolSpec) -> StepUpRequired | None:
    """Why a HIGH RISK call may not run yet: the workspace asks a fresh step-up code first
    (apps.accounts.otp) and this person, credential and session have none. The message gateway's
    agent cannot take a code from anyone, so it is always refused there."""
    if not otp.step_up_required():
        return None
    if ctx.door == "gateway":
        return StepUpNotOnGateway(tool=spec.name)
    if otp.is_fresh(user=ctx.actor, credential=ctx.principal.credential, session_key=ctx.session.session_id):
        return None
    return StepUpRequired(tool=spec.name, minutes=otp.step_up_minutes())


def _run(ctx: ToolContext, spec: ToolSpec, kwargs: dict[str, Any]) -> Any:
    """The tool itself. One that changes things runs in one transaction, run once more when
    PostgreSQL gives it up as a deadlock's victim or for serialization (nothing of it is left, and
    the second run sees what the winner wrote), unless it already sent something out of the
    service (apps.core.outbound.reached): that is SentButNotSaved, never sent twice. Lost twice,
    it is a conflict (`_call`). A
    read-only one runs without: at READ COMMITTED each statement sees its own snapshot anyway, so
    BEGIN and COMMIT would only add two round trips to the database."""
    if spec.read_only or spec.commits_itself:
        # A tool that commits itself answers for its own transactions (registry: commits_itself).
        return spec.function(ctx, **kwargs)
    with outbound.watched() as sent:
        try:
            return _committed(ctx, spec, kwargs)
        except DatabaseError as error:
            failure = database_failure(error)
            if failure is None or not failure.is_retryable:
                raise
            if sent:
                # Its rows are undone, but not what left the service: once more would send it again.
                logger.warning("tool %s lost a race (%s) after reaching %s", spec.name, failure, sent)
                raise SentButNotSaved(tool=spec.name, sent=", ".join(dict.fromkeys(sent))) from error
            logger.info("tool %s lost a race (%s); running it once more", spec.name, failure)
    return _committed(ctx, spec, kwargs)


def _committed(ctx: ToolContext, spec: ToolSpec, kwargs: dict[str, Any]) -> Any:
    """The tool in a transaction, and its answer only once the commit's fate is known. A failure
    after the tool returned (the COMMIT's answer lost with the connection, a PostgreSQL restart
    at that moment; a hook run after the commit) does not say whether the change was saved: the
    transaction's id, read before committing, is then looked up (`_fate`). Committed: the tool's
    answer stands. Rolled back: the failure is answered, nothing was changed. Not known in time:
    OUTCOME_UNKNOWN, never "failed, nothing was changed". Inside an outer transaction (a caller's,
    a test's) nothing commits here: the outer one answers for it.

    Model calls the tool paid for stay paid when its transaction rolls back (apps.core.spending):
    the call was made all the same. When the fate is not known, they are not charged again (they
    may have been saved with the rest)."""
    outermost = not connection.in_atomic_block
    ran, xid, result = False, None, None
    charges: list[spending.Charge] = []
    try:
        with spending.collected() as charges, transaction.atomic():
            result = spec.function(ctx, **kwargs)
            if outermost:
                xid = _transaction_id()
            ran = True
    except Exception as error:
        if not (ran and outermost):
            spending.charge_again(charges)
            raise
        if xid is None:
            raise  # it wrote nothing: there was nothing to save
        fate = _fate(xid)
        if fate == "committed":
            logger.warning(
                "tool %s: saved, though the commit answered %s; answering its result",
                spec.name,
                describe_error(error),
            )
            return result
        if fate == "aborted":
            spending.charge_again(charges)
            raise
        logger.error("tool %s: the commit's fate is unknown (%s)", spec.name, describe_error(error))
        raise OutcomeUnknown(tool=spec.name) from error
    return result


def _transaction_id() -> str | None:
    """This transaction's id, when it has written something (else None: nothing to commit)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_xact_id_if_assigned()::text")
        row = cursor.fetchone()
    return row[0] if row else None


def _fate(xid: str) -> str | None:
    """'committed' or 'aborted' as PostgreSQL has transaction `xid` (pg_xact_status), asked on a
    new connection, again until CATALOGUE_COMMIT_FATE_SECONDS have passed (a restart takes a few);
    None when it could not be told in that time."""
    deadline = time.monotonic() + settings.CATALOGUE_COMMIT_FATE_SECONDS
    while True:
        try:
            connection.close()
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_xact_status(%s::xid8)", [xid])
                row = cursor.fetchone()
            status = row[0] if row else None
            if status in {"committed", "aborted"}:
                return str(status)
        except DatabaseError:
            pass
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.5)


def _too_long(spec: ToolSpec, answer: dict[str, Any]) -> dict[str, Any] | None:
    """The error that replaces an answer longer than MAX_RESULT_TOKENS (clients cut or refuse
    longer ones: a model would read half a list), or None when it fits."""
    size = sum(len(part.get("text", "")) for part in answer.get("content", []) if isinstance(part, dict))
    tokens = size // 4
    if tokens <= MAX_RESULT_TOKENS:
        return None
    if spec.read_only:
        return error_result(
            f"The answer of {spec.name} is too long to send ({tokens:,} tokens; at most "
            f"{MAX_RESULT_TOKENS:,}). Nothing was changed: ask for less (a smaller limit, the next "
            "page, a narrower query, or one record at a time)."
        )
    return error_result(
        f"{spec.name} was done, but its answer is too long to send ({tokens:,} tokens; at most "
        f"{MAX_RESULT_TOKENS:,}). Do not call it again: read what you need with the tools that read it."
    )


def _validated(spec: ToolSpec, arguments: Any) -> BaseModel | tuple[str, str, dict[str, Any]]:
    """The arguments checked against the tool's input model, or the answer that says why not."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return "invalid_arguments", "", error_result(f"The arguments of {spec.name} must be a JSON object.")
    try:
        return spec.input_model.model_validate(arguments)
    except ValidationError as error:
        return "invalid_arguments", "", error_result(invalid_arguments_message(spec, error))


def _binding(ctx: ToolContext, spec: ToolSpec, validated: BaseModel) -> inputs.Binding:
    return inputs.Binding(
        tool=spec.name,
        person=str(getattr(ctx.actor, "pk", "")),
        credential=ctx.principal.credential,
        arguments=inputs.arguments_digest(validated.model_dump(mode="json")),
    )


def input_required_result(ctx: ToolContext, needed: inputs.InputRequired) -> dict[str, Any]:
    """The `InputRequiredResult` that ends this round of the call (MCP 2026-07-28): the questions,
    and the state sealed to this call. Only for what the client declared it can answer; a door
    that asks otherwise gets a tool error instead (it never reaches here in practice: tools ask
    through `ctx` as their door allows)."""
    if not ctx.asks_by_answer or ctx.binding is None:
        return error_result(
            "This tool needs answers from the client first, and this connection cannot pass them: "
            "connect with MCP 2026-07-28, whose clients answer input requests."
        )
    for request in needed.requests.values():
        capability = inputs.CAPABILITY_OF_METHOD.get(str(request.get("method")))
        if capability is None:
            raise TypeError(f"an input request of an unknown method: {request.get('method')!r}")
        if not ctx.declares(capability):
            raise inputs.MissingClientCapability(capability)
    return {
        "resultType": "input_required",
        "inputRequests": needed.requests,
        "requestState": inputs.seal(needed.state, ctx.binding),
    }


def _call_through(
    ctx: ToolContext, spec: ToolSpec, arguments: Any, schema_name: str, started: float
) -> dict[str, Any]:
    """A tool that runs another by name (callTool). The other tool goes through `call_tool` as a
    direct call of it would: its permission (not found, never forbidden), arguments, first call,
    confirmation, cancellation, transaction and its own row in the log, under its own name. The
    answer is its result, unchanged.

    This one runs outside any transaction: the tool it runs opens its own, and one held open here
    would stay open while the user is asked to confirm. It adds a row to the log only when it
    answers by itself (its own arguments are invalid, or it refuses to run what they name): a call
    through it is one row, like a direct call. Errors other than refusals propagate as they would
    from a direct call (a store out of reach is the transport's 503).
    """
    validated = _validated(spec, arguments)
    if isinstance(validated, BaseModel):
        kwargs = {parameter: getattr(validated, parameter) for parameter in spec.parameters}
        try:
            return success_result(spec.function(ctx, **kwargs))
        except AppError as error:
            outcome, error_code, result = "error", error.code, error_result(_app_error_message(error))
    else:
        outcome, error_code, result = validated
    ctx.error_code = error_code
    audit.record(
        schema_name=schema_name,
        principal=ctx.principal,
        tool=spec.name,
        outcome=outcome,
        error_code=error_code,
        duration_ms=(time.perf_counter() - started) * 1000,
    )
    return result


# What a call whose ids name nothing answers, from the tool or from its confirmation's checks.
NOT_FOUND_MESSAGE = "Not found: check the ids you passed; nothing was changed."


def _asks_confirmation(
    ctx: ToolContext, spec: ToolSpec, validated: BaseModel
) -> bool | tuple[str, str, dict[str, Any]]:
    """Whether this call of a marked tool needs its confirmation (`ToolSpec.confirm_if`), or the
    answer to give instead when its arguments are refused: checked first, so that nobody is asked
    to confirm what would fail."""
    assert spec.confirm_if is not None
    kwargs = {parameter: getattr(validated, parameter) for parameter in spec.parameters}
    try:
        return bool(spec.confirm_if(ctx, **kwargs))
    except AppError as error:
        return "error", error.code, error_result(_app_error_message(error))
    except ObjectDoesNotExist:
        return "error", "NOT_FOUND", error_result(NOT_FOUND_MESSAGE)


def _confirm(
    ctx: ToolContext, spec: ToolSpec, validated: BaseModel, token: Any
) -> tuple[str, str, dict[str, Any]] | None:
    """None when the user has confirmed this call; otherwise the answer to give instead."""
    shown = validated.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    digest = policy.arguments_digest(spec, getattr(ctx.actor, "pk", None), validated.model_dump(mode="json"))
    if isinstance(token, str) and token and policy.redeem_token(ctx.session, token, digest):
        return None
    retry = token is not None
    if ctx.asks_by_answer and ctx.declares("elicitation") and not retry:
        return _confirm_by_answer(ctx, spec, shown)
    if ctx.can_elicit and not retry:
        schema = policy.confirm_schema(spec, rich=ctx.rich_elicitation)
        try:
            answer = ctx.elicit(policy.elicitation_message(spec, shown), schema)  # type: ignore[misc]
        except Exception:
            # The question did not reach the user (time-out, stream closed): fall back to tokens.
            logger.info("elicitation for %s failed; answering with a confirmation token", spec.name)
        else:
            if policy.confirmed(schema, answer):
                return None
            action = (answer or {}).get("action")
            return "declined", "", error_result(policy.declined_message(spec, action or "decline"))
    new_token = policy.issue_token(ctx.session, digest)
    message = policy.confirmation_required_message(spec, shown, new_token, retry=retry)
    return "confirmation_required", "CONFIRMATION_REQUIRED", error_result(message)


def _confirm_by_answer(
    ctx: ToolContext, spec: ToolSpec, shown: dict[str, Any]
) -> tuple[str, str, dict[str, Any]] | None:
    """Confirmation for doors that ask by answering (2026-07-28): the first round ends with the
    question (`inputs.InputRequired`); the retry carries the user's answer and the state sealed to
    this exact call, which is spent on the first "allow", so an answer confirms one run only."""
    schema = policy.confirm_schema(spec, rich=ctx.rich_elicitation)
    question = {policy.CONFIRM_INPUT: inputs.elicitation(policy.elicitation_message(spec, shown), schema)}
    answer = (ctx.input_responses or {}).get(policy.CONFIRM_INPUT)
    binding = ctx.binding
    opened = (
        inputs.unseal(ctx.request_state, binding)
        if binding is not None and ctx.request_state is not None
        else None
    )
    if opened is None or not opened.data.get("confirm") or answer is None:
        raise inputs.InputRequired(question, {"confirm": True})
    if not policy.confirmed(schema, answer):
        return (
            "declined",
            "",
            error_result(policy.declined_message(spec, str(answer.get("action") or "decline"))),
        )
    lifetime = max(1, opened.expires - int(time.time()))
    spent = (
        ctx.spend_once(opened.nonce, lifetime)
        if ctx.spend_once is not None
        else policy.spend_once(ctx.session, opened.nonce, opened.expires)
    )
    if not spent:
        # This answer confirmed a run already: ask again for this one.
        raise inputs.InputRequired(question, {"confirm": True})
    return None


# --- results ------------------------------------------------------------------------------------


# Answers a tool gives again and again, the very same object each time (describeTool's, per
# registry version): their JSON and text made once (`kept_answer`), by the object's id, the object
# kept with them so that its id is never another's.
_kept_answers: dict[int, tuple[BaseModel, bytes, str]] = {}


def kept_answer(model: BaseModel) -> BaseModel:
    """`model`, which its tool will answer again as it is (it must never be changed after this):
    its JSON is made here, once, and `success_result` sends that JSON every time."""
    json = type(model).__pydantic_serializer__.to_json(model, by_alias=True)
    if len(_kept_answers) >= _CACHE_LIMIT:
        _kept_answers.clear()
    _kept_answers[id(model)] = (model, json, json.decode())
    return model


def success_result(result: Any, *, as_json: bool = False) -> dict[str, Any]:
    """The CallToolResult of what a tool returned; with `as_json` its structured content is only
    its JSON (`ToolContext.answers_as_json`)."""
    if isinstance(result, RawResult):
        answer: dict[str, Any] = {"content": result.content, "isError": result.is_error}
        if result.structured is not None:
            answer["structuredContent"] = result.structured
        if result.meta:
            answer["_meta"] = result.meta
        return answer
    if not isinstance(result, BaseModel):
        raise TypeError(f"a tool returned {type(result).__name__}, not its output model")
    serializer = type(result).__pydantic_serializer__
    kept = _kept_answers.get(id(result))
    if kept is not None and kept[0] is result:
        json, text = kept[1], kept[2]
    else:
        json = serializer.to_json(result, by_alias=True)
        text = json.decode()
    # The text is the structured content's JSON: the transport sends that JSON as it is.
    answer = PartlyEncoded({"content": [{"type": "text", "text": text}]})
    if as_json:
        answer["structuredContent"] = Json(json)
    else:
        answer.with_json("structuredContent", serializer.to_python(result, mode="json", by_alias=True), json)
    answer["isError"] = False
    return answer


def error_result(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _app_error_message(error: AppError) -> str:
    """The error's message, each field it names written once as the caller wrote it ("schedule.time_zone"
    is `schedule.timeZone`): a field the message states with its problem ("end: must be after
    start.") is named there; a field whose problems the message says otherwise is added after it by
    its name alone; any other, with its problems."""
    message = str(error.message)
    field = error.data.get("field") if isinstance(getattr(error, "data", None), dict) else None
    if isinstance(field, str) and field and message.startswith(f"{field}: "):
        message = f"{_as_written(field)}: {message[len(field) + 2 :]}"
    if not isinstance(error.details, dict):
        return message
    added = []
    for key, value in error.details.items():
        name = _as_written(str(key))
        problems = [
            _unprefixed(str(problem), str(key))
            for problem in (value if isinstance(value, list | tuple) else [value])
        ]
        stated = _stated(message, str(key), problems)
        if stated:
            message = f"{message[: stated.start()]}{name}: {message[stated.end() :]}"
        elif problems and all(_is_message(problem, message, name) for problem in problems):
            if not message.startswith(f"{name}: "):
                added.append(name)
        else:
            added.append(f"{name}: {', '.join(problems)}")
    return f"{message} ({'; '.join(added)})" if added else message


def _as_written(field: str) -> str:
    """A field as the caller wrote it, in backticks: "schedule.time_zone" is `schedule.timeZone`."""
    return f"`{'.'.join(to_camel(part) for part in field.split('.'))}`"


def _unprefixed(problem: str, field: str) -> str:
    """A field's problem without the field's name it may begin with ("since: must be before until.")."""
    return problem[len(field) + 2 :] if problem.startswith(f"{field}: ") else problem


def _is_message(problem: str, message: str, name: str) -> bool:
    """Whether `problem` is the whole message (after the field's name it may begin with)."""
    return problem.rstrip(".") in {message.rstrip("."), message.removeprefix(f"{name}: ").rstrip(".")}


def _stated(message: str, field: str, problems: list[str]) -> re.Match[str] | None:
    """Where `message` says "field: " followed by its first problem, at its start or a sentence's or
    clause's ("Unknown permissions: x" names no field), when it says all its problems."""
    if not problems or not all(problem in message for problem in problems):
        return None
    return re.search(rf"(?:^|(?<=[.:;] )){re.escape(field)}: (?={re.escape(problems[0])})", message)


def _conflict_message(spec: ToolSpec) -> str:
    return (
        f"{spec.name} conflicts with data saved at the same moment (another call added or changed the "
        "same record); nothing was changed. Read the record again, then retry if it is still needed."
    )


def _failure_message(spec: ToolSpec, reference: str) -> str:
    return (
        f"{spec.name} failed because of an error on the server; nothing was changed. Try again in a "
        f"moment; if it fails again, tell the user (error reference {reference})."
    )


# A tool's answer is at most this many tokens (bytes / 4): clients cut longer ones (one truncates
# past 25k tokens), and a model would act on half a list.
MAX_RESULT_TOKENS = 25_000
# An argument error names this many problems at most, each argument's name cut at MAX_NAME.
MAX_PROBLEMS = 5
MAX_NAME = 80


def invalid_arguments_message(spec: ToolSpec, error: ValidationError) -> str:
    """What is wrong with the arguments, naming at most MAX_PROBLEMS of them (a call with 50,000
    unknown arguments gets an answer of a few lines, not one line for each)."""
    items = error.errors(include_url=False, include_context=False, include_input=False)
    problems = []
    for item in items[:MAX_PROBLEMS]:
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        where = where if len(where) <= MAX_NAME else f"{where[:MAX_NAME]}…"
        kind = item["type"]
        if kind == "extra_forbidden":
            problems.append(f"`{where}` is not an argument it takes")
        elif kind == "missing":
            problems.append(f"`{where}` is required")
        else:
            problems.append(f"`{where}`: {item['msg'][: MAX_NAME * 2]}")
    if len(items) > MAX_PROBLEMS:
        problems.append(f"and {len(items) - MAX_PROBLEMS} more")
    known = list(spec.definition["inputSchema"].get("properties", {}))
    takes = ", ".join(f"`{argument}`" for argument in known) if known else "no arguments"
    return (
        f"Invalid arguments for {spec.name}: {'; '.join(problems)}. It takes {takes}. Nothing was done; "
        f"fix the arguments and call it again (describeTool gives the full schema)."
    )


# --- instructions -------------------------------------------------------------------------------


def server_instructions(principal: Principal) -> str:
    """What `initialize` tells an agent about this catalogue, for this principal."""
    specs = usable_tools(principal)
    name = brand("this workspace")
    areas: dict[str, int] = {}
    for spec in specs:
        areas[spec.area] = areas.get(spec.area, 0) + 1
    lines = [
        f"You are connected to {name}. Its tools are grouped in areas; you can use {len(specs)} tools "
        "now, as your role, the workspace's installed areas and your token's scope allow.",
    ]
    if areas:
        listed = ", ".join(f"{area_title(area)} ({area}: {count})" for area, count in sorted(areas.items()))
        lines.append(f"Areas: {listed}.")
    lines.append(
        "searchTools finds tools by keyword, describeTool shows one tool's full definition and "
        "callTool runs any tool you may use, listed or not, so you need not list everything. Clients "
        "with a small tool budget can list a profile ("
        + ", ".join(p.key for p in profiles.PROFILES)
        + ": /api/mcp?profile=sales), only some areas (toolsets) or only read-only tools."
    )
    lines.append(
        "Arguments and results are camelCase JSON. A failed call answers with isError and says what "
        "to do next; nothing is half-written."
    )
    lines.append(
        "Some descriptions start with a marker. GATED, HIGH RISK and DESTRUCTIVE tools act only "
        "after the user confirms: the user is asked directly when your client supports elicitation; "
        "otherwise the first call answers with a confirmation token, and you repeat the same call "
        "with `confirmationToken` once the user has agreed. A MANDATORY FIRST CALL tool must be "
        "called once per session before any other tool of its area."
    )
    firsts = sorted({spec.name for spec in specs if spec.is_first_call})
    if firsts:
        lines.append(f"Mandatory first calls here: {', '.join(firsts)}.")
    return "\n".join(lines)
