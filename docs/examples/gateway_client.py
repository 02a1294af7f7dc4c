"""An example caller of the message gateway (docs/gateway.md), standard library only.

    ATRIUM_TOKEN=atp_... ATRIUM_API_KEY=atr_... \
        python docs/examples/gateway_client.py http://127.0.0.1:8000 "Create a contact Ada Lovelace"

It sends the message with an `Idempotency-Key` (a retried POST after a network error returns the
first answer instead of starting a second conversation), then polls the conversation, waiting
what `Retry-After` says between polls, until it is resolved or failed. It prints one JSON object:
the conversation's uuid, status, the agent's reply (or the error), and what it cost. Exit status:
0 resolved, 1 failed, 2 refused (the error body is printed).
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

TIMEOUT_SECONDS = 300


def call(
    method: str, url: str, headers: dict[str, str], body: dict[str, Any] | None = None
) -> tuple[int, Any, Any]:
    if not url.startswith(("http://", "https://")):
        raise ValueError("the base URL is http:// or https://")
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310 (checked above)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (the caller's own URL)
            return response.status, response.headers, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.headers, json.loads(error.read() or b"{}")


def main(base_url: str, message: str) -> int:
    headers = {
        "Authorization": f"Bearer {os.environ['ATRIUM_TOKEN']}",
        "X-Api-Key": os.environ["ATRIUM_API_KEY"],
    }
    base_url = base_url.rstrip("/")
    idempotency_key = str(uuid.uuid4())
    for attempt in range(3):  # the same Idempotency-Key on every try: one conversation at most
        try:
            status, answer_headers, accepted = call(
                "POST",
                f"{base_url}/api/agent",
                {**headers, "Idempotency-Key": idempotency_key},
                {"message": message},
            )
            break
        except OSError:
            if attempt == 2:
                raise
            time.sleep(1 + attempt)
    if status != 202:
        print(json.dumps({"http_status": status, **accepted}))
        return 2
    conversation_uuid = accepted["conversation_uuid"]
    print(json.dumps({"accepted": accepted, "request_id": answer_headers.get("X-Request-ID")}), flush=True)

    deadline = time.monotonic() + TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        status, poll_headers, conversation = call("GET", f"{base_url}/api/agent/{conversation_uuid}", headers)
        if status != 200:
            print(json.dumps({"http_status": status, **conversation}))
            return 2
        if conversation["status"] in ("resolved", "failed"):
            final = conversation["turns"][-1]["payload"] if conversation["turns"] else {}
            print(
                json.dumps(
                    {
                        "conversation_uuid": conversation_uuid,
                        "status": conversation["status"],
                        "reply": final.get("content"),
                        "error": conversation["error"],
                        "cost": conversation["cost"],
                        "webhook": conversation["webhook"],
                    }
                ),
                flush=True,
            )
            return 0 if conversation["status"] == "resolved" else 1
        time.sleep(float(poll_headers.get("Retry-After") or 1))
    print(json.dumps({"conversation_uuid": conversation_uuid, "status": "timed out waiting"}))
    return 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
