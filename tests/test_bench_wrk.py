"""The wrk scripts the benchmarks build (bench/common.py), run by the real wrk against a loopback
server that records what arrives: the gateway's requests as given, MCP's one session per thread."""

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench import common, gateway, mcp


class Recorder:
    def __init__(self) -> None:
        self.requests: set[tuple[str, str, tuple[tuple[str, str], ...], bytes]] = set()
        self.lock = threading.Lock()
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def handle(self) -> None:
                with contextlib.suppress(ConnectionError):  # wrk drops its connections when its time is up
                    super().handle()

            def do_GET(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = tuple(
                    sorted((k.lower(), v) for k, v in self.headers.items() if k.lower() != "content-length")
                )
                with recorder.lock:
                    recorder.requests.add((self.command, self.path, headers, body))
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"{}")

            do_POST = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/x"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    running = Recorder()
    yield running
    running.server.shutdown()
    running.server.server_close()


def test_the_gateway_benchmark_sends_its_method_headers_and_json_body(recorder):
    headers = {"Authorization": "Bearer t", "X-Api-Key": "k", "Content-Type": "application/json"}
    body = {"message": 'Find contacts named "Ada"', "context": {"entity_type": "contact"}}

    figures = gateway.wrk_run(
        "wrk", recorder.url, method="POST", headers=headers, body=body, connections=2, seconds=1
    )

    [(method, path, sent, received)] = recorder.requests
    assert (method, path) == ("POST", "/api/x")
    assert {k: v for k, v in sent if k != "host"} == {k.lower(): v for k, v in headers.items()}
    assert received == b'{"message": "Find contacts named \\"Ada\\"", "context": {"entity_type": "contact"}}'
    assert figures["rate"] > 0 and 0 < figures["p50"] <= figures["p99"]


def test_a_get_without_a_body_sends_none(recorder):
    bearer = {"Authorization": "Bearer t"}

    gateway.wrk_run("wrk", recorder.url, method="GET", headers=bearer, body=None, connections=2, seconds=1)

    [(method, _path, _sent, received)] = recorder.requests
    assert (method, received) == ("GET", b"")


def test_the_mcp_benchmark_sends_each_session_on_its_own_thread(recorder):
    sessions = ["s-one", "s-two", "s-three"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}

    figures = mcp.wrk_run("wrk", recorder.url, sessions, {"X-Api-Key": "k"}, body, 1)

    assert len(recorder.requests) == 3
    for _method, _path, sent, _body in recorder.requests:
        fields = dict(sent)
        assert fields["accept"] == mcp.ACCEPT and fields["x-api-key"] == "k"
        assert fields["mcp-protocol-version"] == "2025-06-18"
    assert {dict(sent)["mcp-session-id"] for _m, _p, sent, _b in recorder.requests} == set(sessions)
    assert figures["rate"] > 0 and figures["p50"].endswith("s")


def test_wrk_latencies_read_in_milliseconds():
    read = [common.milliseconds(text) for text in ("850.00us", "12.34ms", "1.20s")]

    assert read == pytest.approx([0.85, 12.34, 1200.0])
    with pytest.raises(ValueError):
        common.milliseconds("12.34")


def test_a_profile_counts_a_function_once_per_stack_and_its_own_time_where_it_is_innermost(tmp_path):
    folded = tmp_path / "profile.txt"
    folded.write_text(
        "serve (apps/mcp/handlers.py:98);query (apps/x.py:5);query (apps/x.py:5) 3\n"
        "serve (apps/mcp/handlers.py:98);encode (apps/y.py:9) 1\n"
    )

    summary = common.profile_summary(folded)

    assert summary.splitlines()[0] == "4 samples; inclusive:"
    assert "100.0 %  serve handlers.py:98" in summary
    own = summary.split("by themselves:")[1]
    assert "75.0 %  query x.py:5" in own and "25.0 %  encode y.py:9" in own and "serve" not in own
