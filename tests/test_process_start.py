"""What a process's start imports: the SDKs that only a provider's call uses are imported by that
call, not by Django's set-up, which every web process, worker and command pays (about a second
each: bench/RESULTS.md, "A process's start")."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The SDK, and the module that imports it where it is used.
ON_FIRST_USE = {
    "atproto": "apps.social.providers.bluesky",
    "mcp": "apps.mcpgateway.providers.client",
}
PROBE = """
import json, sys
import django
django.setup()
print(json.dumps(sorted(sys.modules)))
"""


def test_django_set_up_imports_no_sdk_that_only_a_providers_call_uses():
    started = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    modules = set(json.loads(started.stdout.strip().splitlines()[-1]))
    imported = sorted(name for name in modules if name.split(".")[0] in ON_FIRST_USE)
    assert imported == [], f"imported at start: {imported} (import them where {ON_FIRST_USE} use them)"
    # The modules that use them were imported: what the probe saw is the SDKs' absence.
    assert set(ON_FIRST_USE.values()) <= modules
