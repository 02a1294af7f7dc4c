"""The layers of the code base (docs/area-kit.md, "Layers"), as import-linter checks them from the
contracts in pyproject.toml: core imports no app, tenancy only core, no area a door, and an area
reaches another area (a door reaches an area) only through its public module `apps.<area>.api`.
`make lint` runs the same contracts; this runs them in the suite, so CI holds them too.

What import-linter cannot say is checked here besides: that the contracts name every area there
is, so a new area is under the rule from its first commit, and that the areas' contract sees
their imports of one another at all (without its one exception, the public modules, it breaks).
"""

import logging
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

from apps.core import areas

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
PUBLIC = "apps.** -> apps.*.api"


@pytest.fixture(autouse=True)
def _loggers_kept() -> Iterator[None]:
    """import-linter's command configures logging with `dictConfig`, which disables every logger
    that exists: the suite's own are given back as they were, so that the tests run after these in
    the same process still hear what the service logs (caplog)."""
    known = logging.root.manager.loggerDict.values()
    was = {found: found.disabled for found in known if isinstance(found, logging.Logger)}
    yield
    for found, disabled in was.items():
        found.disabled = disabled


def contracts() -> dict[str, dict]:
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def test_the_import_contracts_are_kept(monkeypatch):
    monkeypatch.chdir(ROOT)
    # 0 when every contract is kept; the report (printed) names each broken import and its line.
    assert lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True) == 0


def test_the_contracts_name_every_area():
    every = {f"apps.{area.app}" for area in areas.all_areas()}
    by_id = contracts()

    assert set(by_id["areas"]["modules"]) == every
    assert set(by_id["doors"]["forbidden_modules"]) == every
    assert set(by_id["layers"]["layers"][1].split(" : ")) == every


def test_the_areas_contract_sees_the_imports_of_public_modules(tmp_path, monkeypatch):
    text = PYPROJECT.read_text()
    assert text.count(f'    "{PUBLIC}",\n') == 2
    # Only the areas' contract loses its exception: the doors import no public module yet.
    without = text.replace(f'    "{PUBLIC}",\n', "", 1)
    (tmp_path / "pyproject.toml").write_text(without)
    monkeypatch.chdir(ROOT)

    assert contracts()["areas"]["ignore_imports"][0] == PUBLIC
    broken = lint_imports(
        config_filename=str(tmp_path / "pyproject.toml"), limit_to_contracts=("areas",), no_cache=True
    )
    assert broken == 1
