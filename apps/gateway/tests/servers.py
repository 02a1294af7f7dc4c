"""Real HTTP servers on loopback for the gateway's tests: a model API speaking either protocol
(OpenAI-compatible chat completions, with image parts, and audio transcriptions as multipart form
data; Anthropic Messages), answering from a script and checking
each request the way the real API would (and, on demand, sending its answer a byte at a time);
a webhook receiver; and a TCP link to the database that a test can cut."""

import base64
import contextlib
import email.parser
import email.policy
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from apps.core.testing import free_port


class _Server:
    def __init__(self, port: int | None = None) -> None:
        self.port = port or free_port()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def start(self) -> "_Server":
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()


# --- the model APIs ------------------------------------------------------------------------------


class ProtocolError(Exception):
    """The request is not what the real API accepts (answered 400, and fails the test)."""


def _check_openai(body: dict[str, Any]) -> None:
    if not isinstance(body.get("model"), str) or not isinstance(body.get("messages"), list):
        raise ProtocolError("model and messages are required")
    if not isinstance(body.get("max_tokens"), int):
        raise ProtocolError("max_tokens must be an integer")
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if tool.get("type") != "function" or not function.get("name") or "parameters" not in function:
            raise ProtocolError(f"bad tool {tool!r}")
    pending: set[str] = set()
    for message in body["messages"]:
        role = message.get("role")
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                raise ProtocolError(
                    "a tool message must answer a tool call of the previous assistant message"
                )
            pending.discard(message["tool_call_id"])
            if not isinstance(message.get("content"), str):
                raise ProtocolError("tool content must be a string")
            continue
        if pending:
            raise ProtocolError(f"tool calls without results: {sorted(pending)}")
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                json.loads(call["function"]["arguments"])
                pending.add(call["id"])
        elif role not in ("system", "user"):
            raise ProtocolError(f"unknown role {role!r}")
        if role == "user" and isinstance(message.get("content"), list):
            _check_openai_parts(message["content"])


def _check_openai_parts(parts: list[Any]) -> None:
    """A user message's content parts (vision): text, and images as URLs or base64 data URIs."""
    for part in parts:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            if not isinstance(part.get("text"), str):
                raise ProtocolError("a text part needs its text")
        elif kind == "image_url":
            url = (part.get("image_url") or {}).get("url")
            if not isinstance(url, str):
                raise ProtocolError("an image_url part needs image_url.url")
            if url.startswith("data:"):
                head, _comma, data = url.partition(",")
                if not head.startswith("data:image/") or not head.endswith(";base64"):
                    raise ProtocolError(f"an image data URI must be data:image/...;base64 ({head[:40]})")
                base64.b64decode(data, validate=True)
            elif not url.startswith("https://"):
                raise ProtocolError("an image URL must be https or a data URI")
        else:
            raise ProtocolError(f"unknown content part {kind!r}")


def _form_data(content_type: str, raw: bytes) -> dict[str, Any]:
    """A multipart/form-data body read as the transcription API reads it: its text fields, and
    `file` as {filename, content_type, data}."""
    if not content_type.startswith("multipart/form-data") or "boundary=" not in content_type:
        raise ProtocolError("a transcription is sent as multipart/form-data")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
    )
    if not message.is_multipart():
        raise ProtocolError("the multipart body could not be read")
    form: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            raise ProtocolError("a form part without a name")
        payload = part.get_payload(decode=True) or b""
        filename = part.get_filename()
        if filename is not None:
            form[name] = {"filename": filename, "content_type": part.get_content_type(), "data": payload}
        else:
            form[name] = payload.decode()
    return form


def _check_transcription(form: dict[str, Any]) -> None:
    if not isinstance(form.get("model"), str) or not form["model"]:
        raise ProtocolError("model is required")
    file = form.get("file")
    if not isinstance(file, dict) or not file["data"]:
        raise ProtocolError("file is required")
    if form.get("response_format", "json") not in ("json", "text", "verbose_json", "srt", "vtt"):
        raise ProtocolError("unknown response_format")


def _check_anthropic(body: dict[str, Any], headers: Any) -> None:
    if headers.get("anthropic-version") != "2023-06-01":
        raise ProtocolError("anthropic-version header missing")
    if not isinstance(body.get("max_tokens"), int) or not isinstance(body.get("messages"), list):
        raise ProtocolError("max_tokens and messages are required")
    messages = body["messages"]
    if not messages or messages[0].get("role") != "user":
        raise ProtocolError("the first message must be the user's")
    expected = "user"
    uses: set[str] = set()
    for message in messages:
        if message.get("role") != expected:
            raise ProtocolError("roles must alternate user / assistant")
        expected = "assistant" if expected == "user" else "user"
        for block in message.get("content") or []:
            if block.get("type") == "tool_use":
                uses.add(block["id"])
                if not isinstance(block.get("input"), dict):
                    raise ProtocolError("tool_use input must be an object")
            elif block.get("type") == "tool_result" and block.get("tool_use_id") not in uses:
                raise ProtocolError("tool_result for an unknown tool_use")
    for tool in body.get("tools") or []:
        if not tool.get("name") or "input_schema" not in tool:
            raise ProtocolError(f"bad tool {tool!r}")


Responder = Callable[[dict[str, Any], int], Any]


def _head(handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str]) -> bytes:
    """An answer's status line and headers, as they go on the wire."""
    lines = [f"{handler.protocol_version} {status} {handler.responses[status][0]}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _dribble(
    out: Any, data: bytes, first: int, seconds: float, stopping: threading.Event
) -> tuple[int, bool]:
    """Writes the first `first` bytes of `data` at once, then the rest a byte at a time, `seconds`
    apart, until done or `stopping` is set. Returns how many bytes went out and whether the
    reader stayed (False: it closed the connection)."""
    sent = 0
    try:
        out.write(data[:first])
        sent = first
        for index in range(first, len(data)):
            if stopping.wait(seconds):
                break
            out.write(data[index : index + 1])
            sent += 1
    except OSError:
        return sent, False
    return sent, True


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    # Seconds between the bytes of the answer (0: all at once), from its first byte ("status") or
    # once the headers are sent at once ("body"): a slow provider, or a slow-loris proxy.
    trickle: float = 0.0
    trickle_from: str = "body"
    # The body's bytes as they are, in place of `body` (what no JSON encoder writes).
    raw: bytes | None = None


class ModelServer(_Server):
    """`protocol`: "openai" or "anthropic". `responder(request_body, index)` returns a Reply (or a
    body dict); it may block (to let a test kill the worker mid-call)."""

    def __init__(
        self, protocol: str, responder: Responder, *, api_key: str = "model-key", port: int | None = None
    ):
        super().__init__(port)
        self.protocol = protocol
        self.responder = responder
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.problems: list[str] = []
        # (bytes sent, seconds) of each trickled answer the client stopped reading.
        self.abandoned: list[tuple[int, float]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()
        super().stop()

    @property
    def url(self) -> str:
        base = f"http://127.0.0.1:{self.port}"
        return f"{base}/v1" if self.protocol == "openai" else base

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    if server.protocol == "openai" and self.path == "/v1/audio/transcriptions":
                        if self.headers.get("Authorization") != f"Bearer {server.api_key}":
                            self._send(Reply(401, {"error": {"message": "bad key"}}))
                            return
                        body = _form_data(self.headers.get("Content-Type") or "", raw)
                        _check_transcription(body)
                    else:
                        body = json.loads(raw)
                    if server.protocol == "openai" and self.path == "/v1/audio/transcriptions":
                        pass
                    elif server.protocol == "openai" and self.path == "/v1/images/generations":
                        if self.headers.get("Authorization") != f"Bearer {server.api_key}":
                            self._send(Reply(401, {"error": {"message": "bad key"}}))
                            return
                        if not isinstance(body.get("model"), str) or not isinstance(body.get("prompt"), str):
                            raise ProtocolError("an image request needs a model and a prompt")
                    elif server.protocol == "openai":
                        if self.path != "/v1/chat/completions":
                            raise ProtocolError(f"unexpected path {self.path}")
                        if self.headers.get("Authorization") != f"Bearer {server.api_key}":
                            self._send(Reply(401, {"error": {"message": "bad key"}}))
                            return
                        _check_openai(body)
                    else:
                        if self.path != "/v1/messages":
                            raise ProtocolError(f"unexpected path {self.path}")
                        if self.headers.get("x-api-key") != server.api_key:
                            self._send(
                                Reply(401, {"type": "error", "error": {"type": "authentication_error"}})
                            )
                            return
                        _check_anthropic(body, self.headers)
                except (ProtocolError, ValueError, KeyError, TypeError) as error:
                    server.problems.append(str(error))
                    self._send(Reply(400, {"error": {"message": str(error)}}))
                    return
                with server._lock:
                    index = len(server.requests)
                    server.requests.append(body)
                answer = server.responder(body, index)
                self._send(answer if isinstance(answer, Reply) else Reply(200, answer))

            def _send(self, reply: Reply) -> None:
                data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode()
                if reply.trickle:
                    self._trickle(reply, data)
                    return
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def _trickle(self, reply: Reply, data: bytes) -> None:
                headers = {
                    "Content-Type": "application/json",
                    "Content-Length": str(len(data)),
                    **reply.headers,
                }
                whole = _head(self, reply.status, headers) + data
                first = len(whole) - len(data) if reply.trickle_from == "body" else 0
                started = time.monotonic()
                sent, stayed = _dribble(self.wfile, whole, first, reply.trickle, server._stopping)
                if not stayed:
                    with server._lock:
                        server.abandoned.append((sent, time.monotonic() - started))

        return Handler


def openai_tool_calls(
    *calls: tuple[str, dict[str, Any] | str], usage: tuple[int, int] = (100, 20)
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{index}_{name}",
                            "type": "function",
                            "function": {
                                "name": name,
                                "arguments": arguments
                                if isinstance(arguments, str)
                                else json.dumps(arguments),
                            },
                        }
                        for index, (name, arguments) in enumerate(calls)
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }


def openai_text(text: str, usage: tuple[int, int] = (100, 20)) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }


def anthropic_tool_use(
    *calls: tuple[str, dict[str, Any]], text: str = "", usage: tuple[int, int] = (100, 20)
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": f"toolu_{index}_{name}", "name": name, "input": arguments}
        for index, (name, arguments) in enumerate(calls)
    ]
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": content,
        "stop_reason": "tool_use",
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }


def anthropic_text(text: str, usage: tuple[int, int] = (100, 20), **extra_usage: int) -> dict[str, Any]:
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "test-model",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1], **extra_usage},
    }


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool results a request carries, in either protocol: [{"id", "content", "is_error"}]."""
    found = []
    for message in body.get("messages", []):
        if message.get("role") == "tool":
            found.append({"id": message["tool_call_id"], "content": message["content"], "is_error": None})
        for block in message.get("content") or [] if isinstance(message.get("content"), list) else []:
            if block.get("type") == "tool_result":
                found.append(
                    {
                        "id": block["tool_use_id"],
                        "content": block["content"],
                        "is_error": block.get("is_error"),
                    }
                )
    return found


def offered_tools(body: dict[str, Any]) -> list[str]:
    return [tool.get("name") or tool.get("function", {}).get("name") for tool in body.get("tools") or []]


# --- a webhook receiver --------------------------------------------------------------------------


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float
    path: str


class Receiver(_Server):
    """Answers each POST with the next status of `statuses` (the last one repeats), after
    `delay` seconds; records what arrived. With `trickle`, the answer goes out a byte at a time
    from its status line, `trickle` seconds apart (a slow-loris receiver)."""

    def __init__(
        self,
        statuses: list[int] | None = None,
        *,
        port: int | None = None,
        delay: float = 0.0,
        answer: bytes = b'{"ok": true}',
        location: str = "",
        trickle: float = 0.0,
    ) -> None:
        super().__init__(port)
        self.statuses = list(statuses or [200])
        self.delay = delay
        self.trickle = trickle
        self.answer = answer
        self.location = location
        self.received: list[Received] = []
        self.arrived = threading.Condition()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks/atrium"

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        with self.arrived:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"{len(self.received)} webhooks arrived, not {count}, within {timeout} s"
                    )
                self.arrived.wait(left)
            return list(self.received)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                arrived = time.time()
                with receiver.arrived:
                    index = len(receiver.received)
                    receiver.received.append(
                        Received({k.lower(): v for k, v in self.headers.items()}, body, arrived, self.path)
                    )
                    receiver.arrived.notify_all()
                if receiver.delay:
                    time.sleep(receiver.delay)
                status = receiver.statuses[min(index, len(receiver.statuses) - 1)]
                if receiver.trickle:
                    headers = {
                        "Content-Type": "application/json",
                        "Content-Length": str(len(receiver.answer)),
                    }
                    whole = _head(self, status, headers) + receiver.answer
                    _dribble(self.wfile, whole, 0, receiver.trickle, threading.Event())
                    return
                try:
                    self.send_response(status)
                    if receiver.location and 300 <= status < 400:
                        self.send_header("Location", receiver.location)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(receiver.answer)))
                    self.end_headers()
                    self.wfile.write(receiver.answer)
                except OSError:
                    pass

        return Handler


# --- a link that can be cut -------------------------------------------------------------------------


class Link:
    """A TCP link on loopback to `host`:`port` (a database, say) that a test cuts and mends: while
    cut, every connection through it is closed and new ones are closed as soon as they arrive, as
    when the server behind it has gone; `mend()` lets them through again."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self.cut_at: float | None = None
        self._cut = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._sockets: set[Any] = set()
        self._listener: Any = None

    def start(self) -> "Link":
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def cut(self) -> None:
        self.cut_at = time.monotonic()
        self._cut.set()
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            _close(sock)

    def mend(self) -> None:
        self._cut.clear()

    def stop(self) -> None:
        self._closed.set()
        self.cut()
        _close(self._listener)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _address = self._listener.accept()
            except OSError:
                return
            if self._cut.is_set():
                _close(client)
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            server.settimeout(None)
            with self._lock:
                self._sockets |= {client, server}
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: Any, sink: Any) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for sock in (source, sink):
            _close(sock)
        with self._lock:
            self._sockets -= {source, sink}


def _close(sock: Any) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
