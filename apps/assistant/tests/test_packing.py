"""The greedy packer alone (no database): working hours in the person's zone across a change of
daylight saving time, buffers around busy times, deadlines, priority, pinned blocks."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from apps.assistant.packing import Item, Pin, Rules, digest, pack

BERLIN = ZoneInfo("Europe/Berlin")


def _rules(**given) -> Rules:
    # Friday 27 March 2026, 08:00 in Berlin; clocks go forward on Sunday the 29th.
    start = datetime(2026, 3, 27, 8, tzinfo=BERLIN)
    return Rules(zone=BERLIN, start=start, end=start + timedelta(days=6), **given)


def test_blocks_keep_wall_clock_working_hours_across_the_dst_change():
    items = [Item(1, "Long task", 8 * 60), Item(2, "Next", 120)]
    plan = pack(items, [], _rules(buffer=timedelta(0)))
    assert not plan.conflicts
    for block in plan.blocks:
        local = block.start.astimezone(BERLIN)
        assert local.hour >= 9 and block.end.astimezone(BERLIN).hour <= 17 and local.weekday() < 5
    monday = [b for b in plan.blocks if b.start.astimezone(BERLIN).date().isoformat() == "2026-03-30"]
    assert monday and monday[0].start.astimezone(BERLIN).hour == 9
    assert monday[0].start.utcoffset() is not None and monday[0].start.astimezone(
        BERLIN
    ).utcoffset() == timedelta(hours=2)


def test_busy_times_are_avoided_with_the_buffer_and_priority_goes_first():
    rules = _rules()
    meeting = (datetime(2026, 3, 27, 9, tzinfo=BERLIN), datetime(2026, 3, 27, 10, tzinfo=BERLIN))
    plan = pack(
        [Item(1, "low", 30, priority="low"), Item(2, "urgent", 30, priority="urgent")], [meeting], rules
    )
    first, second = plan.blocks
    assert first.key == 2 and first.start == datetime(2026, 3, 27, 10, 15, tzinfo=BERLIN)
    assert second.start >= first.end + rules.buffer


def test_a_task_that_cannot_fit_before_its_deadline_is_a_conflict_not_a_late_block():
    rules = _rules()
    due = datetime(2026, 3, 27, 11, tzinfo=BERLIN)
    plan = pack([Item(1, "Too big", 240, due=due)], [], rules)
    assert plan.blocks == [] and plan.conflicts[0].problem.startswith("no free working time")


def test_a_pinned_block_stays_where_it_was_put_and_its_clash_is_said():
    meeting = (datetime(2026, 3, 30, 14, tzinfo=BERLIN), datetime(2026, 3, 30, 15, tzinfo=BERLIN))
    pinned = datetime(2026, 3, 30, 14, 30, tzinfo=BERLIN)
    plan = pack([Item(1, "Moved", 60), Item(2, "Other", 60)], [meeting], _rules(), [Pin(1, pinned)])
    moved = next(b for b in plan.blocks if b.key == 1)
    assert moved.pinned and moved.start == pinned
    assert [c.problem for c in plan.conflicts] == ["the moved block overlaps a busy time"]
    assert digest([meeting]) == digest([meeting]) != digest([])
