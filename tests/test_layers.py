"""The layers of the code base (CONVENTIONS.md, docs/architecture.md): what each app may import.

core is the bottom: it imports no other app. tenancy knows workspaces, never people. Areas know
core, tenancy, accounts, the catalogue and the public modules of other areas, but never a door:
what an area needs of keys, conversations or the MCP endpoint goes through an interface in core
or the catalogue that the door fills. Read from the source (every import, at any depth), so a
late import inside a function counts too.
"""

import ast
from pathlib import Path

import pytest

from apps.core import areas

APPS = Path(__file__).resolve().parents[1] / "apps"
DOORS = {"mcp", "gateway", "oauth", "apikeys"}


def imported_apps(app: str) -> dict[str, set[str]]:
    """{imported app: the modules of `app` importing it}, tests and migrations left out."""
    found: dict[str, set[str]] = {}
    for path in sorted((APPS / app).rglob("*.py")):
        parts = path.relative_to(APPS).parts
        if "tests" in parts or "migrations" in parts:
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                if name.startswith("apps."):
                    other = name.split(".")[1]
                    if other != app:
                        found.setdefault(other, set()).add(str(path.relative_to(APPS)))
    return found


def test_core_imports_no_other_app() -> None:
    assert imported_apps("core") == {}


def test_tenancy_imports_only_core() -> None:
    assert set(imported_apps("tenancy")) <= {"core"}


@pytest.mark.parametrize("area", sorted(area.app for area in areas.all_areas()))
def test_an_area_imports_no_door(area: str) -> None:
    doors = {name: modules for name, modules in imported_apps(area).items() if name in DOORS}
    assert doors == {}
