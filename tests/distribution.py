"""How the whole suite spreads over pytest-xdist's processes: bootstrap.py runs it with `--dist
loadfile`, and the root conftest.py makes this module's scheduler the one that hands it out.

As under loadfile, a process takes a module at a time, so that the servers a module's fixtures
start, start once. But a test whose parameters name a tool of the catalogue (its id names it:
`test_contract.py::test_...[createContact]`) goes with those of its module and the tool's area:
the contract test alone is some 40 % of the suite's tests, and as one unit it kept a process busy
while the other ran out of modules. A new area's tools are a unit of their own once it is declared.

Units are handed out largest first (by number of tests), as xdist does, except the modules
pytest's `early_modules` setting names (pyproject.toml), handed out before any other, in the
order named, all to the process that took the first: a module of a few tests that takes minutes
(tests/test_readme_commands.py starts the whole service, tests/test_soak.py a cluster under
faults) would otherwise come last and end the run alone, and two that started the whole service
at once on the 2 cores ran past their time limits (bench/RESULTS.md, "Test suite"). The other
processes take the rest meanwhile.

Units are told apart by the tests' ids alone, which is all xdist's scheduler sees: pytest-xdist's
own `loadgroup` carries a test's `xdist_group` in its id, which pytest 9.2 no longer lets it change
(pytest-xdist issue 1386), so that it groups nothing.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from xdist.scheduler import LoadFileScheduling


def unit_of(nodeid: str, tool_areas: Mapping[str, str]) -> str:
    """The module of the test `nodeid`, or `<module>:<area>` when a parameter names a tool
    (`tool_areas`: each tool's area)."""
    module, _, test = nodeid.partition("::")
    opened = test.find("[")
    if opened >= 0 and test.endswith("]"):
        # pytest joins the ids of the parameters with "-"; a tool's name has none.
        for part in test[opened + 1 : -1].split("-"):
            area = tool_areas.get(part)
            if area is not None:
                return f"{module}:{area}"
    return module


class ByModuleAndArea(LoadFileScheduling):
    def __init__(
        self, config: pytest.Config, log: Any, *, tool_areas: Mapping[str, str], early: Sequence[str]
    ) -> None:
        super().__init__(config, log)
        self.tool_areas = tool_areas
        self.early = list(early)
        self.early_node: Any = None  # the process the early modules go to, one after another

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid, self.tool_areas)

    def _assign_work_unit(self, node: Any) -> None:
        early = next((unit for unit in self.early if unit in self.workqueue), None)
        if early is not None:
            if self.early_node is None:
                self.early_node = node
            if node is self.early_node:
                self.workqueue.move_to_end(early, last=False)
            else:
                # Another process takes the largest unit that is not an early one, if any is left.
                other = next((unit for unit in self.workqueue if unit not in self.early), None)
                if other is not None:
                    self.workqueue.move_to_end(other, last=False)
        super()._assign_work_unit(node)
