"""How the suite spreads over pytest-xdist's processes (tests/distribution.py): a module is a
unit, a test parametrised over the tools goes with its module's tests of the same area, and an
`early:` group is handed out first. The scheduler runs here on a made-up collection, two workers
standing in for xdist's."""

from pathlib import Path
from types import SimpleNamespace

from apps.catalogue import registry
from tests.distribution import ModulesAndGroups, tool_group

COLLECTION = [
    "apps/catalogue/tests/test_contract.py::test_checks[createContact]@test_contract:contacts",
    "apps/catalogue/tests/test_contract.py::test_checks[getContact]@test_contract:contacts",
    "apps/catalogue/tests/test_contract.py::test_calls[createContact]@test_contract:contacts",
    "apps/catalogue/tests/test_contract.py::test_checks[createTask]@test_contract:tasks",
    "apps/catalogue/tests/test_contract.py::test_calls[createTask]@test_contract:tasks",
    "apps/catalogue/tests/test_contract.py::test_most_tools_take_text_somewhere",
    "apps/tasks/tests/test_pages.py::test_list",
    "apps/tasks/tests/test_pages.py::test_detail[a@example.org]",
    "tests/test_readme_commands.py::test_up@early:whole-service",
    "tests/test_readme_commands.py::test_stop@early:whole-service",
]


class Worker:
    """What the scheduler asks of an xdist worker: run these tests (by index), or stop."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.gateway = SimpleNamespace(id=name)
        self.pending: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.pending += indices

    def shutdown(self) -> None:
        self.shutting_down = True


def run(collection: list[str]) -> tuple[dict[str, str], list[str]]:
    """Which worker ran each test, and the tests in the order they were handed out."""
    config = SimpleNamespace(getvalue={"tx": ["2*popen"]}.get, option=SimpleNamespace(loadscopereorder=True))
    scheduler = ModulesAndGroups(config)  # type: ignore[arg-type]
    workers = [Worker("gw0"), Worker("gw1")]
    for worker in workers:
        scheduler.add_node(worker)  # type: ignore[arg-type]
        scheduler.add_node_collection(worker, collection)  # type: ignore[arg-type]
    scheduler.schedule()
    ran: dict[str, str] = {}
    handed_out = [collection[index] for worker in workers for index in worker.pending[:1]]
    while any(worker.pending for worker in workers):
        for worker in workers:
            if worker.pending:
                index = worker.pending.pop(0)
                ran[collection[index]] = worker.name
                scheduler.mark_test_complete(worker, index)  # type: ignore[arg-type]
    return ran, handed_out


def test_every_test_runs_once_and_a_unit_on_one_worker():
    ran, _first = run(COLLECTION)

    assert set(ran) == set(COLLECTION)
    units = {
        "contacts": [nodeid for nodeid in COLLECTION if nodeid.endswith("@test_contract:contacts")],
        "tasks": [nodeid for nodeid in COLLECTION if nodeid.endswith("@test_contract:tasks")],
        "the contract module's other test": [COLLECTION[5]],
        "a module": COLLECTION[6:8],  # an "@" inside a parameter is not a group
        "the early group": COLLECTION[8:],
    }
    for name, nodeids in units.items():
        assert len({ran[nodeid] for nodeid in nodeids}) == 1, name
    # The contract module is no longer one unit: its areas went to both workers here.
    assert {ran[COLLECTION[0]], ran[COLLECTION[3]]} == {"gw0", "gw1"}


def test_an_early_group_is_handed_out_first_then_the_largest_units():
    _ran, first = run(COLLECTION)

    assert first == [COLLECTION[8], COLLECTION[0]]


def test_a_test_over_the_tools_is_in_its_modules_group_of_its_area():
    contract = Path("apps/catalogue/tests/test_contract.py")
    over_a_tool = SimpleNamespace(
        path=contract, callspec=SimpleNamespace(params={"spec": registry.get("createContact"), "text": "x"})
    )
    over_text = SimpleNamespace(path=contract, callspec=SimpleNamespace(params={"text": "x"}))

    assert tool_group(over_a_tool) == "test_contract:contacts"  # type: ignore[arg-type]
    assert tool_group(over_text) is None  # type: ignore[arg-type]
    assert tool_group(SimpleNamespace(path=contract)) is None  # type: ignore[arg-type]
