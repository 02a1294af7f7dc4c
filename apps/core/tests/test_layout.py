"""Rules of the code's layout that a review would otherwise have to remember."""

import ast
from pathlib import Path

APPS = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


def test_an_area_makes_another_areas_records_with_its_factories_never_its_samples():
    """samples.py belongs to the catalogue's contract test; another area's tests use factories.py."""
    crossings = []
    for path in APPS.glob("*/**/*.py"):
        area = path.relative_to(APPS).parts[0]
        for module in _imports(path):
            parts = module.split(".")
            if parts[:1] == ["apps"] and parts[2:] == ["tests", "samples"] and parts[1] != area:
                crossings.append(f"{path.relative_to(APPS)} imports {module}")
    assert crossings == []


def _code(app: str) -> list[tuple[Path, list[str]]]:
    """The imports of an app's own code: its tests may use anything."""
    return [
        (path, _imports(path))
        for path in (APPS / app).glob("**/*.py")
        if "tests" not in path.relative_to(APPS / app).parts
    ]


def _reaching(app: str, others: set[str]) -> list[str]:
    return [
        f"{path.relative_to(APPS)} imports {module}"
        for path, modules in _code(app)
        for module in modules
        if module.split(".")[:1] == ["apps"] and len(module.split(".")) > 1 and module.split(".")[1] in others
    ]


def test_core_imports_no_app_above_it():
    above = {path.name for path in APPS.iterdir() if path.is_dir()} - {"core"}
    assert _reaching("core", above) == []


def test_tenancy_knows_no_people():
    assert _reaching("tenancy", {"accounts"}) == []


def test_no_area_imports_a_door():
    doors = {"mcp", "gateway", "oauth", "apikeys"}
    areas = [path.parent.name for path in APPS.glob("*/area.py")]
    assert len(areas) >= 8
    assert [crossing for area in areas for crossing in _reaching(area, doors)] == []
