"""How the whole suite spreads over pytest-xdist's processes (bootstrap.py runs it with `--dist
loadgroup`; the root conftest.py's hooks use what is here).

A process takes a module at a time, so that the servers a module's fixtures start, start once;
but a test parametrised over the catalogue's tools goes with those of its module and area: the
contract test alone is some 40 % of the suite's tests, and as one unit it kept a process busy
while the other ran out of modules. An area's tools are a unit of their own once it is declared.

Units are handed out largest first (by number of tests), as xdist does, except a group named
`early:...` (a module's `pytestmark = pytest.mark.xdist_group("early:...")`), handed out before
any other: a module of a few tests that takes minutes (tests/test_readme_commands.py starts the
whole service) would otherwise come last and end the run alone. One such module at most: two that
started the whole service at once on the 2 cores ran past their time limits (bench/RESULTS.md).
"""

from typing import Any

import pytest
from xdist.scheduler import LoadGroupScheduling

EARLY = "early:"


def tool_group(item: pytest.Item) -> str | None:
    """`<module>:<area>` for a test parametrised over a tool (the catalogue's ToolSpec)."""
    from apps.catalogue.registry import ToolSpec

    params = getattr(getattr(item, "callspec", None), "params", {})
    areas = sorted({value.area for value in params.values() if isinstance(value, ToolSpec)})
    return f"{item.path.stem}:{areas[0]}" if areas else None


class ModulesAndGroups(LoadGroupScheduling):
    """xdist's loadgroup, except that a test of no group goes with its module (loadgroup hands
    such tests out one by one) and that an `early:` group goes first."""

    def _split_scope(self, nodeid: str) -> str:
        # xdist writes a test's group into its id after its parameters: "path::name[id]@group".
        if nodeid.rfind("@") > nodeid.rfind("]"):
            return nodeid.rsplit("@", 1)[1]
        return nodeid.split("::", 1)[0]

    def _assign_work_unit(self, node: Any) -> None:
        early = next((scope for scope in self.workqueue if scope.startswith(EARLY)), None)
        if early is not None:
            self.workqueue.move_to_end(early, last=False)
        super()._assign_work_unit(node)
