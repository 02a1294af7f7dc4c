"""Secrets that must be read back (webhook signing secrets, credentials of outside services) are
kept encrypted at rest with Fernet (AES-128-CBC + HMAC-SHA256, from `cryptography`).

Keys come from `settings.ATRIUM_ENCRYPTION_KEYS` (the environment variable of the same name in
production): the first key encrypts, every key decrypts, so rotating means putting a new key first,
running `reencrypt` over the stored values, then dropping the old key.
"""

import functools

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver


class DecryptionFailed(Exception):
    """The value was not encrypted with any configured key (or was tampered with)."""


@functools.cache
def _fernet() -> MultiFernet:
    keys = [key for key in settings.ATRIUM_ENCRYPTION_KEYS if key]
    if not keys:
        raise ImproperlyConfigured("ATRIUM_ENCRYPTION_KEYS is empty: no key to encrypt secrets with.")
    try:
        return MultiFernet([Fernet(key) for key in keys])
    except ValueError as error:
        raise ImproperlyConfigured(
            "ATRIUM_ENCRYPTION_KEYS holds a value that is not a Fernet key "
            "(32 bytes, urlsafe base64: Fernet.generate_key())."
        ) from error


@receiver(setting_changed)
def _forget_keys(*, setting: str, **kwargs: object) -> None:
    if setting == "ATRIUM_ENCRYPTION_KEYS":
        _fernet.cache_clear()


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt(ciphertext: str) -> str:
    try:
        return _fernet().decrypt(ciphertext.encode()).decode()
    except InvalidToken as error:
        raise DecryptionFailed() from error


def reencrypt(ciphertext: str) -> str:
    """The same plaintext under the first (newest) key."""
    try:
        return _fernet().rotate(ciphertext.encode()).decode()
    except InvalidToken as error:
        raise DecryptionFailed() from error
