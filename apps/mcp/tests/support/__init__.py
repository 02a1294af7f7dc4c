"""Stand-ins for testing the transport in isolation, loaded only by `support.settings` (the
settings of the web processes these tests start): a credential scheme of their own and a
small dispatcher speaking the catalogue's interface (docs/architecture.md)."""
