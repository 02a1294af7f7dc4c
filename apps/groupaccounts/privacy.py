"""Personal data in group accounts (docs/privacy.md): linked contacts by address; the accounts
themselves are organisations (their owner and creator links are cleared when a person is
erased)."""

from apps.core import privacy
from apps.groupaccounts.models import GroupAccount, GroupAccountContact

privacy.register(GroupAccountContact, email="contact__email")
privacy.not_personal(GroupAccount, reason="organisations: names, kinds, domains and descriptions")
