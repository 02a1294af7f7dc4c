"""The tools' schemas kept between starts (apps.catalogue.derived): read back only for the same
code, never for a tool made inside a function."""

import json

import pytest

from apps.catalogue import derived, registry


@pytest.fixture
def fresh(settings, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """A process's view of an empty data folder."""
    settings.DATA_DIR = tmp_path
    monkeypatch.setattr(derived, "_kept", None)
    monkeypatch.setattr(derived, "_made", {})
    return tmp_path / "cache" / "tool-schemas.json"


def test_a_tools_schemas_are_read_back_as_they_were_built(fresh, monkeypatch):
    spec = registry.get("getContactHealth")
    assert spec is not None
    where = derived.key(spec.function.__module__, spec.function.__qualname__, spec.name)
    built = (spec.definition["inputSchema"], spec.definition["outputSchema"])
    derived.put(where, built)
    derived.keep()
    assert json.loads(fresh.read_text())["fingerprint"] == derived.fingerprint()

    monkeypatch.setattr(derived, "_kept", None)  # the next process
    again = registry.build_spec(
        spec.function, name=spec.name, permission=spec.permission, title=spec.title, read_only=True
    )

    assert derived.get(where) == built
    assert again.definition == spec.definition
    # A copy: changing what was read changes nothing kept.
    derived.get(where)[0]["type"] = "changed"
    assert derived.get(where) == built


def test_schemas_kept_for_other_code_are_not_read(fresh, monkeypatch):
    where = "apps.somewhere.tool:someTool"
    derived.put(where, ({"type": "object"}, None))
    derived.keep()

    monkeypatch.setattr(derived, "_kept", None)
    monkeypatch.setattr(derived, "_fingerprint", "another version of the code")

    assert derived.get(where) is None


def test_a_tool_made_inside_a_function_is_never_kept():
    assert derived.key("apps.x.tests.test_y", "test_z.<locals>.tool", "tool") is None
    assert derived.key("apps.contacts.tools.health", "get_contact_health", "getContactHealth") == (
        "apps.contacts.tools.health.get_contact_health:getContactHealth"
    )
