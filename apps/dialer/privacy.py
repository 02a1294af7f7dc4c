"""Personal data in the Agent Dialer (docs/privacy.md): the calls and text messages a person's
agents placed go with them; those to or from a number of a contact with a person's address are
about that person, exported with their data and kept on erasure. The do-not-call list and the
pronunciations are the workspace's: an erased person's entries stay (a number on the list must
stay on it), without their name."""

from django.db.models import Q, QuerySet

from apps.contacts import api as contacts
from apps.core import privacy
from apps.dialer import rules
from apps.dialer.models import Call, Callback, DoNotCall, Message, Pronunciation


def _numbers(subject: privacy.Subject) -> list[str]:
    """The person's numbers, as calls keep them: those of the contacts with their address."""
    found = (rules.searched_number(phone) for phone in contacts.phones_by_email(subject.email))
    return [number for number in dict.fromkeys(found) if number]


def _calls_about(subject: privacy.Subject) -> QuerySet[Call]:
    return Call._base_manager.filter(to_number__in=_numbers(subject))


def _messages_about(subject: privacy.Subject) -> QuerySet[Message]:
    numbers = _numbers(subject)
    return Message._base_manager.filter(Q(to_number__in=numbers) | Q(from_number__in=numbers))


# The calls and texts to a contact's number are about them: exported with their data, and kept
# on erasure as the call log of the person who made them.
privacy.register(Call, user="created_by", mentions=_calls_about)
privacy.register(Message, user="created_by", mentions=_messages_about)
privacy.register(DoNotCall, user="created_by", erase={"created_by": None})
privacy.register(Pronunciation, user="created_by", erase={"created_by": None})
privacy.not_personal(Callback, reason="a digest of a provider callback and the provider's id of a call")
