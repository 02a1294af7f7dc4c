"""Held-out requests for the Credential Vaults, written from docs/vaults.md and SPEC.md 4.7 before
any search hints; never used to tune (see test_search_quality.py)."""

HELD_OUT: list[tuple[str, str | tuple[str, ...]]] = [
    ("browse the credential vault", "vaultList"),
    ("what passwords and tokens do we store", "vaultList"),
    ("look up our mailchimp key in the vault", "vaultLookup"),
    ("reference for the saved ftp credential", "vaultLookup"),
]
