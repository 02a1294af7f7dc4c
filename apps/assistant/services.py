"""The Personal Assistant's writes: a brief started and answered (the goal and its tasks made),
research kept, schedule proposals made (nothing written to the calendar), a proposal approved
(its blocks written as calendar events, exactly as proposed), governance checks and acceptance
tests. Each `(*, actor, ...)`, the actor's permission checked, all or nothing."""

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from apps.accounts.models import User
from apps.assistant import errors, governance, packing, questions
from apps.assistant.models import Brief, Goal, GoalTask, GovernanceCheck, PlanTest, ScheduleProposal
from apps.assistant.permissions import AssistantPerm
from apps.calendars import api as calendars_api
from apps.core import clean, recurrence
from apps.core.actors import Actor, actor_id, require
from apps.core.db import connection
from apps.core.errors import invalid
from apps.tasks import api as tasks_api

MOST_TASKS = 20
LONGEST_DAYS = 90
# A proposal's blocks start on the quarter hours (every zone's offset is a multiple of one), the
# first at least this far from now: time to read it and approve it.
LEAD = timedelta(minutes=5)
QUARTER = timedelta(minutes=15)
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


# --- briefs and goals ---------------------------------------------------------------------------


def brief_start(*, actor: Actor, topic: str, api_key_id: int | None) -> tuple[Brief, str]:
    require(actor, AssistantPerm.EDIT)
    topic = clean.text(topic, field="topic", limit=300, required=True)
    asked = questions.ask(api_key_id=api_key_id, topic=topic)
    brief = Brief.objects.create(
        owner_id=actor.pk,
        created_by_id=actor_id(actor),
        topic=topic,
        source=asked.source,
        rounds=[{"question": question, "answer": ""} for question in asked.questions],
    )
    return brief, asked.note


def _moment(value: Any, *, field: str, zone: Any) -> datetime:
    if isinstance(value, datetime):
        return value if timezone.is_aware(value) else value.replace(tzinfo=zone)
    return recurrence.parse_when(str(value or ""), zone=zone, field=field, allow_date=True)


def _tasks_given(tasks: list[dict[str, Any]], zone: Any, deadline: datetime) -> list[dict[str, Any]]:
    if len(tasks) > MOST_TASKS:
        raise invalid("tasks", _("at most {limit} tasks"), limit=MOST_TASKS)
    out = []
    for index, task in enumerate(tasks):
        field = f"tasks[{index}]"
        minutes = task.get("estimate_minutes")
        if not isinstance(minutes, int) or not 5 <= minutes <= 60 * 40:
            raise invalid(field, _("estimateMinutes must be 5 to {most}"), most=60 * 40)
        priority = task.get("priority") or "normal"
        if priority not in tasks_api.PRIORITIES:
            raise invalid(
                field, _("priority must be one of {choices}"), choices=", ".join(tasks_api.PRIORITIES)
            )
        due = _moment(task["due_at"], field=field, zone=zone) if task.get("due_at") else None
        if due is not None and due > deadline:
            raise invalid(
                field,
                _("its due date is after the goal's deadline {deadline}"),
                deadline=deadline.isoformat(),
            )
        out.append(
            {
                "title": clean.text(task.get("title"), field=field, limit=200, required=True),
                "minutes": minutes,
                "priority": priority,
                "due_at": due,
            }
        )
    return out


def _add_tasks(actor: Actor, goal: Goal, given: list[dict[str, Any]]) -> list[GoalTask]:
    start = goal.tasks.count()
    made = []
    for offset, task in enumerate(given):
        summary = tasks_api.create(
            actor=actor,
            title=task["title"],
            description=f"For the goal: {goal.objective}",
            priority=task["priority"],
            due_at=task["due_at"] or goal.deadline,
        )
        made.append(
            GoalTask.objects.create(
                goal=goal,
                task_id=summary.id,
                title=task["title"],
                estimate_minutes=task["minutes"],
                priority=task["priority"],
                due_at=task["due_at"],
                position=start + offset,
            )
        )
    return made


def _hours(fields: dict[str, Any]) -> tuple[int, int]:
    starts, ends = fields.get("day_starts", 9), fields.get("day_ends", 17)
    if not (isinstance(starts, int) and isinstance(ends, int) and 0 <= starts < ends <= 24):
        raise invalid("dayEnds", _("working hours must end after they start, within 0 to 24"))
    return starts, ends


@transaction.atomic
def brief_answer(
    *, actor: Actor, brief: Brief, answers: list[tuple[int, str]], goal: dict[str, Any] | None
) -> Goal | None:
    """Records the answers; with `goal` (objective, deadline, ...) once every question is
    answered, makes the goal and its tasks (each a task of the Tasks area)."""
    require(actor, AssistantPerm.EDIT)
    brief = Brief.objects.select_for_update().fetch(actor, brief.pk, "change")
    if brief.status == Brief.Status.DONE:
        raise errors.BriefFinished(id=brief.pk, goal=getattr(getattr(brief, "goal", None), "pk", 0))
    rounds = list(brief.rounds)
    for number, answer in answers:
        if not 1 <= number <= len(rounds):
            raise invalid(
                "answers",
                _("question {number} does not exist; the brief has {count}"),
                number=number,
                count=len(rounds),
            )
        rounds[number - 1] = {
            **rounds[number - 1],
            "answer": clean.long_text(answer, field="answers", limit=4000),
        }
    brief.rounds = rounds
    made = None
    if goal is not None:
        empty = [index + 1 for index, row in enumerate(rounds) if not row["answer"].strip()]
        if empty:
            raise errors.BriefUnanswered(id=brief.pk, count=len(empty), first=empty[0])
        made = _goal_create(actor, brief, goal)
        brief.status = Brief.Status.DONE
    brief.save(update_fields=["rounds", "status", "updated_at"])
    return made


def _goal_create(actor: Actor, brief: Brief, fields: dict[str, Any]) -> Goal:
    zone = recurrence.zone_named(fields.get("time_zone"), field="timeZone")
    deadline = _moment(fields.get("deadline"), field="deadline", zone=zone)
    if deadline <= timezone.now():
        raise invalid("deadline", _("must be in the future"))
    if deadline > timezone.now() + timedelta(days=LONGEST_DAYS):
        raise invalid("deadline", _("at most {days} days ahead"), days=LONGEST_DAYS)
    starts, ends = _hours(fields)
    criteria = [
        clean.text(c, field="successCriteria", limit=300) for c in fields.get("success_criteria") or []
    ]
    tasks = _tasks_given(list(fields.get("tasks") or []), zone, deadline)
    buffer = fields.get("buffer_minutes", 10)
    goal = Goal.objects.create(
        owner_id=actor.pk,
        created_by_id=actor_id(actor),
        brief=brief,
        objective=clean.text(fields.get("objective"), field="objective", limit=300, required=True),
        success_criteria=[c for c in criteria if c],
        deadline=deadline,
        time_zone=zone.key,
        day_starts=starts,
        day_ends=ends,
        buffer_minutes=buffer if isinstance(buffer, int) and 0 <= buffer <= 120 else 10,
        budget_micro_usd=int(fields.get("budget_micro_usd") or 0),
        spend_micro_usd=int(fields.get("spend_micro_usd") or 0),
    )
    _add_tasks(actor, goal, tasks)
    return goal


# --- research -------------------------------------------------------------------------------------


@transaction.atomic
def research_keep(*, actor: Actor, goal: Goal, sources: list[dict[str, Any]]) -> Goal:
    require(actor, AssistantPerm.EDIT)
    goal = Goal.objects.select_for_update().fetch(actor, goal.pk, "change")
    known = {(s.get("kind"), s.get("url"), s.get("title")) for s in goal.research}
    fresh = [s for s in sources if (s.get("kind"), s.get("url"), s.get("title")) not in known]
    goal.research = (goal.research + fresh)[-50:]
    goal.save(update_fields=["research", "updated_at"])
    return goal


# --- schedule proposals -------------------------------------------------------------------------


def _open_tasks(actor: Actor, goal: Goal) -> list[GoalTask]:
    rows = list(goal.tasks.all())
    seen = tasks_api.seen(actor=actor, ids=[row.task_id for row in rows])
    return [row for row in rows if row.task_id in seen and not seen[row.task_id].completed]


def _window(goal: Goal, start: datetime | None = None) -> tuple[datetime, datetime]:
    """From the first quarter hour at least LEAD from now (a proposal's first block is never in
    the past by the time its person approves it) to the goal's deadline."""
    now = timezone.now()
    earliest = max(start or now, now + LEAD)
    quarters = -(-(earliest - EPOCH) // QUARTER)  # rounded up
    return EPOCH + quarters * QUARTER, goal.deadline


def _busy(actor: Actor, start: datetime, end: datetime) -> list[tuple[datetime, datetime]]:
    return calendars_api.busy_times(email=actor.email, user=actor, start=start, end=end)


def _rules(goal: Goal, start: datetime, end: datetime) -> packing.Rules:
    return packing.Rules(
        zone=recurrence.zone_named(goal.time_zone),
        start=start,
        end=end,
        day_starts=goal.day_starts,
        day_ends=goal.day_ends,
        buffer=timedelta(minutes=goal.buffer_minutes),
    )


def _item(row: GoalTask) -> packing.Item:
    return packing.Item(
        key=row.pk,
        title=row.title,
        minutes=row.estimate_minutes,
        priority=row.priority,
        due=row.due_at,
        not_before=row.not_before,
        position=row.position,
    )


@transaction.atomic
def propose(
    *,
    actor: Actor,
    goal: Goal,
    changes: list[dict[str, Any]] = (),  # type: ignore[assignment]
    moves: list[dict[str, Any]] = (),  # type: ignore[assignment]
    add_tasks: list[dict[str, Any]] = (),  # type: ignore[assignment]
    reason: str = "",
) -> ScheduleProposal:
    """A new proposal for the goal (the one before it superseded): its tasks changed as asked (a
    task that slipped, a new estimate), the blocks a person moved pinned where they put them,
    packed into the free working time before the deadline. Writes nothing to the calendar."""
    require(actor, AssistantPerm.EDIT)
    goal = Goal.objects.select_for_update().fetch(actor, goal.pk, "change")
    zone = recurrence.zone_named(goal.time_zone)
    rows = {row.pk: row for row in goal.tasks.all()}
    for index, change in enumerate(changes):
        row = rows.get(change.get("goal_task_id") or 0)
        if row is None:
            raise invalid(f"changes[{index}]", _("goalTaskId is not a task of this goal (paListGoalTasks)"))
        if change.get("estimate_minutes") is not None:
            row.estimate_minutes = change["estimate_minutes"]
        if change.get("priority"):
            row.priority = change["priority"]
        if change.get("not_before"):
            row.not_before = _moment(change["not_before"], field=f"changes[{index}]", zone=zone)
        if change.get("due_at"):
            due = _moment(change["due_at"], field=f"changes[{index}]", zone=zone)
            if due > goal.deadline:
                raise invalid(
                    f"changes[{index}]",
                    _("its due date is after the goal's deadline {deadline}"),
                    deadline=goal.deadline.isoformat(),
                )
            row.due_at = due
        row.save()
    pins = []
    for index, move in enumerate(moves):
        if (move.get("goal_task_id") or 0) not in rows:
            raise invalid(f"moves[{index}]", _("goalTaskId is not a task of this goal (paListGoalTasks)"))
        at = _moment(move.get("start"), field=f"moves[{index}]", zone=zone)
        if at < timezone.now():
            raise invalid(f"moves[{index}]", _("a block cannot be moved into the past"))
        pins.append(packing.Pin(move["goal_task_id"], at))
    if add_tasks:
        _add_tasks(actor, goal, _tasks_given(list(add_tasks), zone, goal.deadline))
    open_rows = _open_tasks(actor, goal)
    if not open_rows:
        raise errors.NothingToSchedule(id=goal.pk)
    start, end = _window(goal)
    busy = _busy(actor, start, end)
    plan = packing.pack([_item(row) for row in open_rows], busy, _rules(goal, start, end), pins)
    by_id = {row.pk: row for row in open_rows}
    goal.proposals.filter(status=ScheduleProposal.Status.PROPOSED).update(
        status=ScheduleProposal.Status.SUPERSEDED
    )
    last = goal.proposals.order_by("-version").values_list("version", flat=True).first() or 0
    return ScheduleProposal.objects.create(
        goal=goal,
        version=last + 1,
        blocks=[
            {
                "goal_task": block.key,
                "task_id": by_id[block.key].task_id,
                "title": block.title,
                "start": block.start.isoformat(),
                "end": block.end.isoformat(),
                "pinned": block.pinned,
            }
            for block in plan.blocks
        ],
        conflicts=[{"goal_task": c.key, "title": c.title, "problem": c.problem} for c in plan.conflicts],
        constraints={
            "start": start.isoformat(),
            "end": end.isoformat(),
            "time_zone": goal.time_zone,
            "day_starts": goal.day_starts,
            "day_ends": goal.day_ends,
            "buffer_minutes": goal.buffer_minutes,
            "busy": len(busy),
            "moves": [{"goal_task": p.key, "start": p.start.isoformat()} for p in pins],
        },
        busy_digest=packing.digest(busy),
        reason=clean.text(reason, field="reason", limit=300),
    )


def blocks_of(proposal: ScheduleProposal) -> list[tuple[datetime, datetime]]:
    return [(datetime.fromisoformat(b["start"]), datetime.fromisoformat(b["end"])) for b in proposal.blocks]


def stale_reason(proposal: ScheduleProposal, actor: Actor) -> str:
    """Why the proposal no longer holds ("" when it does): a newer one, a block whose time has
    passed, or the calendar changed around it since it was made."""
    if proposal.status == ScheduleProposal.Status.SUPERSEDED:
        return "a newer proposal replaced it"
    now = timezone.now()
    if any(start < now for start, _end in blocks_of(proposal)):
        return "a block's time has passed"
    start = datetime.fromisoformat(proposal.constraints["start"])
    end = datetime.fromisoformat(proposal.constraints["end"])
    owner = proposal.goal.owner
    if packing.digest(_busy(owner, start, end)) != proposal.busy_digest:
        return "the calendar changed since it was made"
    return ""


def outside_workspace(emails: list[str]) -> list[str]:
    inside = set(User.objects.filter(email__in=emails, is_active=True).values_list("email", flat=True))
    return [email for email in emails if email not in inside]


def approvable(*, actor: Actor, proposal: ScheduleProposal) -> None:
    """Refuses a proposal that cannot be approved, writing nothing (asked before the confirmation)."""
    require(actor, AssistantPerm.EDIT)
    ScheduleProposal.objects.fetch(actor, proposal.pk, "change")
    if proposal.status == ScheduleProposal.Status.APPROVED:
        raise errors.ProposalNotApprovable(id=proposal.pk, status=proposal.status)
    reason = stale_reason(proposal, actor)
    if reason:
        raise errors.ProposalStale(id=proposal.pk, reason=reason)
    if not proposal.blocks:
        raise errors.ProposalNotApprovable(id=proposal.pk, status="empty")


@transaction.atomic
def approve(*, actor: Actor, proposal: ScheduleProposal, invite: list[str]) -> ScheduleProposal:
    """The proposal's blocks written into the actor's calendar, exactly as proposed, the people of
    `invite` invited to each; the proposal approved, the goal scheduled."""
    proposal = ScheduleProposal.objects.select_for_update().select_related("goal").get(pk=proposal.pk)
    approvable(actor=actor, proposal=proposal)
    goal = proposal.goal
    ids = [
        calendars_api.put_own_event(
            actor=actor,
            title=block["title"],
            description=f"A block for the goal “{goal.objective}” (task {block['task_id']}), "
            f"planned by the assistant, proposal {proposal.pk}.",
            starts_at=datetime.fromisoformat(block["start"]),
            ends_at=datetime.fromisoformat(block["end"]),
            time_zone=goal.time_zone,
            guests=invite,
            invite=bool(invite),
        )
        for block in proposal.blocks
    ]
    proposal.status = ScheduleProposal.Status.APPROVED
    proposal.approved_at = timezone.now()
    proposal.event_ids = ids
    proposal.invited = invite
    proposal.save(update_fields=["status", "approved_at", "event_ids", "invited"])
    Goal.objects.filter(pk=goal.pk).update(status=Goal.Status.SCHEDULED, updated_at=timezone.now())
    return proposal


def latest_proposal(goal: Goal) -> ScheduleProposal:
    found = goal.proposals.order_by("-version").first()
    if found is None:
        raise errors.NoProposal(id=goal.pk)
    return found


# --- governance and tests -----------------------------------------------------------------------


def governance_check(
    *,
    actor: Actor,
    proposal: ScheduleProposal,
    invite: list[str],
    external_approved: bool,
    spend_approved: bool,
    rules: tuple[str, ...] = governance.RULES,
) -> GovernanceCheck:
    require(actor, AssistantPerm.EDIT)
    goal = proposal.goal
    outside = outside_workspace(invite)
    facts = governance.Facts(
        blocks=blocks_of(proposal),
        deadline=goal.deadline,
        zone=recurrence.zone_named(goal.time_zone),
        day_starts=goal.day_starts,
        day_ends=goal.day_ends,
        invite=invite,
        outside=outside,
        external_approved=external_approved,
        spend_micro_usd=goal.spend_micro_usd,
        spend_approved=spend_approved,
        budget_micro_usd=goal.budget_micro_usd,
    )
    findings = governance.evaluate(facts, rules)
    return GovernanceCheck.objects.create(
        goal=goal,
        proposal=proposal,
        rules={
            "rules": list(rules),
            "invite": invite,
            "external_approved": external_approved,
            "spend_approved": spend_approved,
        },
        findings=[{"rule": f.rule, "passed": f.passed, "detail": f.detail} for f in findings],
        passed=all(f.passed for f in findings),
    )


ACCEPTANCE = (
    "every_task_scheduled",
    "before_deadlines",
    "no_overlaps",
    "clear_of_busy_times",
    "within_working_hours",
)


def test_start(
    *, actor: Actor, proposal: ScheduleProposal, enqueue: Callable[[int, str], None]
) -> tuple[PlanTest, bool]:
    """The acceptance test of the proposal, queued on Celery; the same test of the same proposal
    again is the run already made (idempotent). Answers the test and whether it is new."""
    require(actor, AssistantPerm.EDIT)
    key = hashlib.sha256(
        json.dumps([proposal.pk, proposal.busy_digest, list(ACCEPTANCE)]).encode()
    ).hexdigest()
    with transaction.atomic():
        test, made = PlanTest.objects.get_or_create(
            proposal=proposal, key=key, defaults={"goal": proposal.goal, "definition": list(ACCEPTANCE)}
        )
        if made:
            schema = connection.schema_name
            transaction.on_commit(lambda: enqueue(test.pk, schema))
    return test, made


def test_run(test_id: int) -> None:
    """Runs a queued test (the Celery task): each check in the log, the status passed or failed.
    A test already finished is left as it is (delivered twice, it runs once)."""
    with transaction.atomic():
        test = (
            PlanTest.objects.select_for_update()
            .select_related("proposal__goal__owner")
            .filter(pk=test_id)
            .first()
        )
        if test is None or test.status in (PlanTest.Status.PASSED, PlanTest.Status.FAILED):
            return
        test.status, test.started_at = PlanTest.Status.RUNNING, timezone.now()
        test.log = [{"at": timezone.now().isoformat(), "line": "started"}]
        test.save(update_fields=["status", "started_at", "log"])
    proposal = test.proposal
    goal = proposal.goal
    lines, passed = [], True
    for name, ok, detail in _acceptance(proposal, goal):
        passed = passed and ok
        lines.append(
            {"at": timezone.now().isoformat(), "line": f"{name}: {'pass' if ok else 'FAIL'} ({detail})"}
        )
    PlanTest.objects.filter(pk=test.pk).update(
        log=test.log + lines + [{"at": timezone.now().isoformat(), "line": "passed" if passed else "failed"}],
        status=PlanTest.Status.PASSED if passed else PlanTest.Status.FAILED,
        finished_at=timezone.now(),
    )


def _acceptance(proposal: ScheduleProposal, goal: Goal) -> list[tuple[str, bool, str]]:
    blocks = blocks_of(proposal)
    scheduled = {b["goal_task"] for b in proposal.blocks}
    tasks = list(goal.tasks.all())
    missing = [row.title for row in _open_tasks(goal.owner, goal) if row.pk not in scheduled]
    dues = {row.pk: min(row.due_at or goal.deadline, goal.deadline) for row in tasks}
    late = [
        b["title"]
        for b in proposal.blocks
        if datetime.fromisoformat(b["end"]) > dues.get(b["goal_task"], goal.deadline)
    ]
    ordered = sorted(blocks)
    overlaps = sum(1 for a, b in pairwise(ordered) if b[0] < a[1])
    start = datetime.fromisoformat(proposal.constraints["start"])
    end = datetime.fromisoformat(proposal.constraints["end"])
    busy = _busy(goal.owner, start, end)
    if proposal.status == ScheduleProposal.Status.APPROVED:
        busy = [(a, b) for a, b in busy if (a, b) not in set(blocks)]
    clashes = sum(1 for block in blocks for other in busy if block[0] < other[1] and other[0] < block[1])
    zone = recurrence.zone_named(goal.time_zone)
    outside = [
        s
        for s, e in blocks
        if s.astimezone(zone).hour < goal.day_starts
        or (e.astimezone(zone).hour + e.astimezone(zone).minute / 60) > goal.day_ends
    ]
    return [
        (
            "every_task_scheduled",
            not missing,
            f"{len(missing)} not scheduled" + (f": {', '.join(missing)}" if missing else ""),
        ),
        ("before_deadlines", not late, f"{len(late)} late"),
        ("no_overlaps", overlaps == 0, f"{overlaps} overlapping"),
        ("clear_of_busy_times", clashes == 0, f"{clashes} clash(es) with the calendar"),
        ("within_working_hours", not outside, f"{len(outside)} outside working hours"),
    ]
