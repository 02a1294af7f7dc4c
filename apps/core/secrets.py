"""Secrets handed to people once (personal access tokens, API keys), GitHub-style.

    <prefix>_<30 random base62 characters><6-character base62 CRC32 of them>

The fixed prefix tells a reader (and secret scanners) what the string is; the checksum lets us
refuse a mistyped or made-up value without touching the database. Only a SHA-256 digest is
stored: the secret has ~178 bits of entropy, so a slow hash would add nothing.
"""

import hashlib
import hmac
import secrets
import string
import zlib

ALPHABET = string.digits + string.ascii_letters
BODY_LENGTH = 30
CHECKSUM_LENGTH = 6


def _base62(number: int, width: int) -> str:
    chars = []
    while number:
        number, rest = divmod(number, 62)
        chars.append(ALPHABET[rest])
    return "".join(reversed(chars)).rjust(width, "0")


def _checksum(body: str) -> str:
    return _base62(zlib.crc32(body.encode()), CHECKSUM_LENGTH)


def generate(prefix: str) -> str:
    body = "".join(secrets.choice(ALPHABET) for _ in range(BODY_LENGTH))
    return f"{prefix}_{body}{_checksum(body)}"


def is_well_formed(value: str, prefix: str) -> bool:
    """True when `value` has the prefix, length, alphabet and checksum of a real secret."""
    head = f"{prefix}_"
    if not value.startswith(head) or len(value) != len(head) + BODY_LENGTH + CHECKSUM_LENGTH:
        return False
    tail = value[len(head) :]
    if any(char not in ALPHABET for char in tail):
        return False
    body, checksum = tail[:BODY_LENGTH], tail[BODY_LENGTH:]
    return hmac.compare_digest(_checksum(body), checksum)


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()
