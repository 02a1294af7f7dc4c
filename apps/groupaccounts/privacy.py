"""Personal data in group accounts (docs/privacy.md): linked contacts by address; the accounts
themselves are organisations: those a person looks after are exported with their data and stay,
without an owner (their creator link is cleared when the person is erased)."""

from apps.core import privacy
from apps.groupaccounts.models import GroupAccount, GroupAccountContact

privacy.register(GroupAccountContact, email="contact__email")
# The organisation's record: it stays, looked after by nobody until someone takes it on.
privacy.register(GroupAccount, user="owner", erase={"owner": None})
