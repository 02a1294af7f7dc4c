"""An example receiver of the message gateway's webhooks (docs/gateway.md), standard library only.

    ATRIUM_SIGNING_SECRET=atw_... python docs/examples/webhook_receiver.py 8081

It checks both signatures before trusting a delivery:
- `X-Signature`: lowercase hex HMAC-SHA256 of the raw body, keyed with the signing secret
  (SPEC 5.3); during a secret roll's overlap `X-Signature-Previous` carries the old secret's;
- `webhook-signature` (Standard Webhooks): `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-
  timestamp>.<body>">`, space-separated when several secrets sign; the timestamp must be within
  five minutes of now, so a captured delivery cannot be replayed later.
Both are keyed with the signing secret's UTF-8 bytes (the whole `atw_...` string). With a Standard
Webhooks library, pass `"whsec_" + base64(secret)` as its secret.

It answers 200 quickly and drops a `webhook-id` it has already seen (retries carry the same id).
"""

import base64
import hashlib
import hmac
import json
import os
import sys
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer

TOLERANCE_SECONDS = 300


def x_signature_ok(secret: str, body: bytes, headers: Mapping[str, str]) -> bool:
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    candidates = [headers.get("x-signature", ""), headers.get("x-signature-previous", "")]
    return any(candidate and hmac.compare_digest(expected, candidate.strip()) for candidate in candidates)


def standard_signature_ok(
    secret: str, body: bytes, headers: Mapping[str, str], now: float | None = None
) -> bool:
    webhook_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    signatures = headers.get("webhook-signature", "")
    if not (webhook_id and timestamp.isdigit() and signatures):
        return False
    if abs((now if now is not None else time.time()) - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(secret.encode(), signed, hashlib.sha256).digest()).decode()
    for entry in signatures.split():
        version, _, value = entry.partition(",")
        if version == "v1" and hmac.compare_digest(expected, value):
            return True
    return False


def verify(secret: str, body: bytes, headers: Mapping[str, str]) -> bool:
    """Both signatures good. `headers` keyed by lower-case names."""
    return x_signature_ok(secret, body, headers) and standard_signature_ok(secret, body, headers)


class Handler(BaseHTTPRequestHandler):
    secret = os.environ.get("ATRIUM_SIGNING_SECRET", "")
    seen: set[str] = set()

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {name.lower(): value for name, value in self.headers.items()}
        if not verify(self.secret, body, headers):
            self.send_response(401)
            self.end_headers()
            return
        if headers["webhook-id"] not in self.seen:
            self.seen.add(headers["webhook-id"])
            event = json.loads(body)
            if event["status"] == "resolved":
                print(f"{event['conversation_uuid']}: {event['response']}")
            else:
                print(f"{event['conversation_uuid']} failed: {event['error']}")
        self.send_response(200)
        self.end_headers()


if __name__ == "__main__":
    if not Handler.secret:
        sys.exit("set ATRIUM_SIGNING_SECRET to the API key's signing secret")
    HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8081), Handler).serve_forever()
