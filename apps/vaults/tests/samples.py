"""A normal call of every Credential Vaults tool, for the catalogue's contract test."""

import uuid
from typing import Any

from apps.catalogue.testing import Sample, sample
from apps.vaults.tests.factories import item


@sample("vaultList")
def vault_list(actor: Any) -> Sample:
    marker = f"Key{uuid.uuid4().hex[:8]}"
    item(actor, name=f"{marker} stripe")
    return Sample({"query": marker}, private=[marker])


@sample("vaultLookup")
def vault_lookup(actor: Any) -> Sample:
    marker = f"Key{uuid.uuid4().hex[:8]}"
    made = item(actor, name=f"{marker} stripe")
    return Sample({"itemId": made.pk, "purpose": "a test"}, private=[marker])
