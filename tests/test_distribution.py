"""How the suite spreads over pytest-xdist's processes (tests/distribution.py): a module is a
unit, a test whose parameters name a tool goes with its module's tests of the tool's area, and the
early modules are handed out first, one after another to one worker. The scheduler runs here on a
made-up collection, two workers standing in for xdist's."""

from types import SimpleNamespace

from apps.catalogue import registry
from tests.distribution import ByModuleAndArea, unit_of

TOOL_AREAS = {"createContact": "contacts", "getContact": "contacts", "createTask": "tasks"}
CONTRACT = "apps/catalogue/tests/test_contract.py"
COLLECTION = [
    f"{CONTRACT}::test_checks[createContact]",
    f"{CONTRACT}::test_checks[getContact]",
    f"{CONTRACT}::test_text[nul-createContact-email]",
    f"{CONTRACT}::test_checks[createTask]",
    f"{CONTRACT}::test_text[surrogate-createTask-steps.0.title]",
    f"{CONTRACT}::test_most_tools_take_text_somewhere",
    "apps/tasks/tests/test_pages.py::test_list",
    "apps/tasks/tests/test_pages.py::test_detail[createTask@example.org]",
    "tests/test_readme_commands.py::test_up",
    "tests/test_readme_commands.py::test_stop",
    "tests/test_soak.py::test_writes",
    "tests/test_soak.py::test_budgets",
]


class Worker:
    """What the scheduler asks of an xdist worker: run these tests (by index), or stop."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.pending: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.pending += indices

    def shutdown(self) -> None:
        self.shutting_down = True


def run(early: list[str]) -> tuple[dict[str, str], list[str]]:
    """Which worker ran each test, and the first test each worker was given."""
    config = SimpleNamespace(getvalue={"tx": ["2*popen"]}.get, option=SimpleNamespace(loadscopereorder=True))
    scheduler = ByModuleAndArea(config, None, tool_areas=TOOL_AREAS, early=early)  # type: ignore[arg-type]
    workers = [Worker("gw0"), Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)  # type: ignore[arg-type]
        scheduler.add_node_collection(worker, COLLECTION)  # type: ignore[arg-type]
    scheduler.schedule()
    first = [COLLECTION[worker.pending[0]] for worker in workers]
    ran: dict[str, str] = {}
    while any(worker.pending for worker in workers):
        for worker in workers:
            if worker.pending:
                index = worker.pending.pop(0)
                ran[COLLECTION[index]] = worker.gateway.id
                scheduler.mark_test_complete(worker, index)  # type: ignore[arg-type]
    return ran, first


def test_a_test_over_a_tool_is_in_its_modules_unit_of_the_tools_area():
    assert unit_of(COLLECTION[0], TOOL_AREAS) == f"{CONTRACT}:contacts"
    assert unit_of(COLLECTION[4], TOOL_AREAS) == f"{CONTRACT}:tasks"
    assert unit_of(COLLECTION[5], TOOL_AREAS) == CONTRACT
    # A parameter that only contains a tool's name does not name one.
    assert unit_of(COLLECTION[7], TOOL_AREAS) == "apps/tasks/tests/test_pages.py"
    # The catalogue's own tools, as the suite's scheduler is given them (the root conftest.py).
    every = {spec.name: spec.area for spec in registry.all_tools()}
    assert unit_of(f"{CONTRACT}::test_calls[approveInvoice]", every) == f"{CONTRACT}:accounting"


def test_every_test_runs_once_and_a_unit_on_one_worker():
    ran, _first = run(early=[])

    assert set(ran) == set(COLLECTION)
    units = {
        "contacts": COLLECTION[0:3],
        "tasks": COLLECTION[3:5],
        "the contract module's other test": COLLECTION[5:6],
        "a module": COLLECTION[6:8],
        "another module": COLLECTION[8:10],
        "a third module": COLLECTION[10:],
    }
    for name, nodeids in units.items():
        assert len({ran[nodeid] for nodeid in nodeids}) == 1, name
    # The contract module is no longer one unit: its areas went to both workers.
    assert {ran[COLLECTION[0]], ran[COLLECTION[3]]} == {"gw0", "gw1"}


def test_an_early_module_is_handed_out_first_then_the_largest_units():
    _ran, first = run(early=["tests/test_readme_commands.py"])
    _ran, by_size = run(early=[])

    assert first == [COLLECTION[8], COLLECTION[0]]
    assert by_size == [COLLECTION[0], COLLECTION[3]]


# Two modules that each start a cluster of processes for minutes would run past their time limits
# side by side on 2 cores: the second waits for the first, on the same worker.
def test_early_modules_go_one_after_another_to_one_worker_while_the_other_takes_the_rest():
    ran, first = run(early=["tests/test_readme_commands.py", "tests/test_soak.py"])

    assert first == [COLLECTION[8], COLLECTION[0]]
    early = [ran[nodeid] for nodeid in COLLECTION[8:]]
    assert early == ["gw0"] * 4
    order = list(ran)
    assert max(order.index(nodeid) for nodeid in COLLECTION[8:10]) < order.index(COLLECTION[10])
    assert {ran[nodeid] for nodeid in COLLECTION[:8]} == {"gw0", "gw1"}
