"""The soak's rule for a memory leak (bench/promises.py `leaked`), on samples made to order: warm-up
is not a leak, growth past it is, and a run too short to tell is not judged."""

from bench.promises import LEAK_SPAN, leaked

MIB = 2**20


def samples(minutes: float, rss_mib) -> list[tuple[float, int]]:  # type: ignore[no-untyped-def]
    """One sample every 10 s for `minutes`, resident memory rss_mib(fraction of the run)."""
    count = int(minutes * 6)
    return [(index * 10.0, int(rss_mib(index / count) * MIB)) for index in range(count)]


def test_growth_after_warm_up_is_a_leak():
    problem = leaked("web-1", samples(60, lambda part: 200 + 200 * part))
    assert problem is not None
    assert problem.startswith("web-1 grew from ")
    assert "60 minutes" in problem


def test_warm_up_in_the_first_quarter_then_flat_is_not_a_leak():
    def warm(part: float) -> float:
        return 150 + 250 * min(part, 0.25) * 4 + (2 if part > 0.9 else 0)

    assert leaked("worker", samples(60, warm)) is None


def test_small_growth_is_not_a_leak():
    # +30 MiB over the hour: under LEAK_MIB, whatever the share.
    assert leaked("beat", samples(60, lambda part: 60 + 30 * part)) is None


def test_a_run_shorter_than_the_span_is_not_judged():
    assert leaked("web-2", samples(LEAK_SPAN / 60 - 1, lambda part: 100 + 900 * part)) is None
