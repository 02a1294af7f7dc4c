"""The calls of this process that wait on a person (an elicitation: the user's confirmation), and
how many of them one session, one person and the whole process may hold at once.

A call waiting for its user's answer parks a thread of the waiting pool (consumers.executor) for
up to MCP_ELICITATION_TIMEOUT_SECONDS. The pool has MCP_WORKER_THREADS threads for the calls that
run plus MCP_MAX_WAITING for those that wait, and no more than MCP_MAX_WAITING calls wait at once:
however many questions are left unanswered, the other calls still find their threads. One session
may keep MCP_MAX_WAITING_PER_SESSION questions open and one person MCP_MAX_WAITING_PER_PERSON
over all their sessions; a call past a limit is not asked, it gets the confirmation token
instead (apps.catalogue.dispatch), which costs no thread while the person makes up their mind.
"""

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator

from django.conf import settings


class Full(Exception):
    """Asking would pass one of the limits; the message says which."""


class WaitingRoom:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sessions: Counter[str] = Counter()
        self._people: Counter[str] = Counter()
        self.total = 0

    @contextlib.contextmanager
    def seat(self, session: str, person: str) -> Iterator[None]:
        """Held while the call waits for its person's answer; `Full` when it may not wait."""
        with self._lock:
            if self._sessions[session] >= settings.MCP_MAX_WAITING_PER_SESSION:
                raise Full(
                    f"this session already has {self._sessions[session]} questions waiting for an answer"
                )
            if self._people[person] >= settings.MCP_MAX_WAITING_PER_PERSON:
                raise Full(f"this person already has {self._people[person]} questions waiting for an answer")
            if self.total >= settings.MCP_MAX_WAITING:
                raise Full("this server has as many questions waiting for an answer as it holds")
            self._sessions[session] += 1
            self._people[person] += 1
            self.total += 1
        try:
            yield
        finally:
            with self._lock:
                for counter, key in ((self._sessions, session), (self._people, person)):
                    counter[key] -= 1
                    if counter[key] <= 0:
                        del counter[key]
                self.total -= 1


room = WaitingRoom()
