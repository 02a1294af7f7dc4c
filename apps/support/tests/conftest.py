from collections.abc import Iterator

import pytest

from apps.mail.testing import using_local_server


@pytest.fixture(scope="session")
def mail_server() -> Iterator[dict[str, str]]:
    """The test process's own local mail server (apps.mail.testing), named in the settings."""
    with using_local_server() as env:
        yield env
