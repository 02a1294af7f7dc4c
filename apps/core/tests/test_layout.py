"""Rules of the code's layout that a review would otherwise have to remember. (Which app may import
which: the import contracts of pyproject.toml, tests/test_layers.py.)"""

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
