import pytest

from apps.core import credentials
from apps.core.credentials import CredentialRequest, Principal
from apps.core.errors import Unauthenticated


@pytest.fixture
def isolated(monkeypatch):
    monkeypatch.setattr(credentials, "_authenticators", [])


def request(**headers):
    return CredentialRequest(headers=headers, base_url="http://127.0.0.1:8000", door="mcp")


def test_the_first_scheme_that_recognises_the_request_answers(isolated):
    calls = []

    @credentials.register(order=20)
    def second(req):
        calls.append("second")
        return Principal(user="u2", scheme="b", scopes=frozenset(), credential="b:1")

    @credentials.register(order=10)
    def first(req):
        calls.append("first")
        return (
            None
            if "x-first" not in req.headers
            else Principal(user="u1", scheme="a", scopes=frozenset({"mcp"}), credential="a:1")
        )

    assert credentials.authenticate(request(**{"x-first": "1"})).user == "u1"
    assert credentials.authenticate(request()).user == "u2"
    assert calls == ["first", "first", "second"]


def test_no_scheme_recognising_the_request_means_no_credential(isolated):
    credentials.register()(lambda req: None)

    assert credentials.authenticate(request()) is None


def test_a_recognised_but_bad_credential_is_an_error_not_a_fallthrough(isolated):
    @credentials.register(order=1)
    def strict(req):
        raise Unauthenticated()

    credentials.register(order=2)(
        lambda req: Principal(user="x", scheme="b", scopes=frozenset(), credential="b")
    )

    with pytest.raises(Unauthenticated):
        credentials.authenticate(request())
