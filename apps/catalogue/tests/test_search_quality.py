"""searchTools against how people ask: every area keeps, in `apps/<area>/tests/searches.py`, the
requests people make with the tool that should answer each (`REQUESTS`), and the catalogue's
search must put that tool in its first five for at least 95 % of them all. A new area adds its
requests with its tools: a tool no request expects fails the test."""

import importlib

import pytest

from apps.catalogue import registry, search
from apps.core import areas

TARGET = 0.95
TOP = 5


def _requests() -> list[tuple[str, str, tuple[str, ...]]]:
    found = []
    for area in areas.all_areas():
        module = importlib.import_module(f"{area.module}.tests.searches")
        for request, expected in module.REQUESTS:
            names = (expected,) if isinstance(expected, str) else tuple(expected)
            found.append((area.key, request, names))
    return found


REQUESTS = _requests()
AREA_TOOLS = [spec for spec in registry.all_tools() if spec.area != "catalogue" and not spec.fixture]


def test_the_requests_name_real_tools_one_of_their_area_and_each_once():
    requests = [request for _area, request, _names in REQUESTS]
    assert len(requests) == len(set(requests))
    for area, request, names in REQUESTS:
        specs = [registry.get(name) for name in names]
        assert None not in specs, f"{request!r} expects a tool that does not exist: {names}"
        assert any(spec.area == area for spec in specs if spec), f"{request!r} expects no tool of {area}"


@pytest.mark.parametrize("spec", AREA_TOOLS, ids=lambda spec: spec.name)
def test_every_tool_is_expected_by_a_request(spec):
    assert any(spec.name in names for _area, _request, names in REQUESTS)


def test_the_search_finds_the_right_tool_in_its_first_five():
    specs = registry.all_tools()
    misses = []
    for _area, request, names in REQUESTS:
        top = [spec.name for _score, spec in search.rank(specs, request)[:TOP]]
        if not set(names) & set(top):
            misses.append(f"{request!r}: wanted {' or '.join(names)}, got {', '.join(top)}")
    found = 1 - len(misses) / len(REQUESTS)
    assert len(REQUESTS) >= 150
    assert found >= TARGET, f"{found:.1%} in the first {TOP}; missed:\n" + "\n".join(misses)
