"""The governance rules a plan is checked against before it acts (AREAS.md 2.12): no sending
outside the workspace and no spending without a person's approval, a budget cap, working hours,
deadlines. Each rule a finding, passed or failed, with what it found. No I/O."""

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

RULES = ("external_sends", "spend_approval", "budget_cap", "working_hours", "deadlines")


@dataclass(frozen=True)
class Finding:
    rule: str
    passed: bool
    detail: str


@dataclass(frozen=True)
class Facts:
    blocks: list[tuple[datetime, datetime]]
    deadline: datetime
    zone: ZoneInfo
    day_starts: int
    day_ends: int
    invite: list[str]  # addresses the approval would invite
    outside: list[str]  # of those, the ones not of the workspace
    external_approved: bool
    spend_micro_usd: int
    spend_approved: bool
    budget_micro_usd: int


def evaluate(facts: Facts, rules: tuple[str, ...] = RULES) -> list[Finding]:
    out: list[Finding] = []
    for rule in rules:
        if rule == "external_sends":
            if facts.outside and not facts.external_approved:
                out.append(
                    Finding(
                        rule,
                        False,
                        f"invites {len(facts.outside)} address(es) outside the workspace without approval",
                    )
                )
            else:
                out.append(Finding(rule, True, f"{len(facts.outside)} outside address(es), approved or none"))
        elif rule == "spend_approval":
            ok = facts.spend_micro_usd == 0 or facts.spend_approved
            out.append(
                Finding(
                    rule,
                    ok,
                    f"spend {facts.spend_micro_usd} micro-USD, "
                    + ("approved" if facts.spend_approved else "not approved"),
                )
            )
        elif rule == "budget_cap":
            ok = facts.budget_micro_usd == 0 or facts.spend_micro_usd <= facts.budget_micro_usd
            out.append(
                Finding(
                    rule, ok, f"spend {facts.spend_micro_usd} of a cap of {facts.budget_micro_usd or 'none'}"
                )
            )
        elif rule == "working_hours":
            outside = [
                start
                for start, end in facts.blocks
                if start.astimezone(facts.zone).hour < facts.day_starts
                or _end_hour(end, facts.zone) > facts.day_ends
                or start.astimezone(facts.zone).date() != end.astimezone(facts.zone).date()
            ]
            out.append(Finding(rule, not outside, f"{len(outside)} block(s) outside working hours"))
        elif rule == "deadlines":
            late = [end for _start, end in facts.blocks if end > facts.deadline]
            out.append(Finding(rule, not late, f"{len(late)} block(s) end after the deadline"))
    return out


def _end_hour(end: datetime, zone: ZoneInfo) -> float:
    local = end.astimezone(zone)
    return local.hour + local.minute / 60
