"""bootstrap.py's embedded PostgreSQL found still stopping (an earlier run stopping it, or killed
as it stopped it): the run waits for that server to be gone before it starts one, instead of taking
it for a running server and failing at once ("the database system is shutting down")."""

import importlib.util
import subprocess
import sys
import threading

import pytest

from apps.core.testing import ROOT


@pytest.fixture
def bootstrap(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("bootstrap_under_test", ROOT / "bootstrap.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "PGDATA", tmp_path)
    return module


@pytest.fixture
def server():
    """A process standing for the postmaster, ended by the test (and at the latest after it)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield child
    child.kill()
    child.wait()


def write_pid_file(directory, pid: int, status: str) -> None:
    # postmaster.pid: pid, data directory, start time, port, socket directory, listen address,
    # shared memory key, status.
    lines = [str(pid), str(directory), "1796000000", "5432", "", "127.0.0.1", "  5432001  0", status]
    (directory / "postmaster.pid").write_text("\n".join(lines) + "\n")


def test_a_server_still_stopping_is_waited_for(bootstrap, tmp_path, server):
    write_pid_file(tmp_path, server.pid, "stopping")
    ended = threading.Timer(0.5, lambda: (server.kill(), server.wait()))
    ended.start()

    bootstrap.wait_postgres_stopped(seconds=30)

    assert server.poll() is not None
    ended.join()


@pytest.mark.parametrize("status", ["ready", "starting"])
def test_a_server_not_stopping_is_not_waited_for(bootstrap, tmp_path, server, status):
    write_pid_file(tmp_path, server.pid, status)

    bootstrap.wait_postgres_stopped(seconds=30)

    assert server.poll() is None


def test_a_server_that_does_not_stop_is_said_plainly(bootstrap, tmp_path, server, capsys):
    write_pid_file(tmp_path, server.pid, "stopping")

    with pytest.raises(SystemExit):
        bootstrap.wait_postgres_stopped(seconds=0.5)

    assert f"(pid {server.pid}) is still stopping" in capsys.readouterr().err
