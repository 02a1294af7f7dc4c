"""Requests people make, with the tool searchTools should find (see test_search_quality.py)."""

REQUESTS: list[tuple[str, str | tuple[str, ...]]] = [
    ("which credentials are in the vault", "vaultList"),
    ("list the API keys we keep in the vault", "vaultList"),
    ("show the secrets shared with my role", "vaultList"),
    ("what logins does the vault have for our suppliers", "vaultList"),
    ("which vault items expire soon", "vaultList"),
    ("find the stripe API key in the vault", "vaultLookup"),
    ("get the reference to the github token from the vault", "vaultLookup"),
    ("look up the credential named weather service key", "vaultLookup"),
    ("which vault secret should the tool use for the shipping API", "vaultLookup"),
    ("fetch the password reference for the supplier portal login", "vaultLookup"),
]
