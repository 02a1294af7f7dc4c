"""Personal data in social posting (docs/privacy.md): a post goes with its author (export), and
their link is cleared on erasure: the post itself is the workspace's publication, already public.
An account keeps who connected it, cleared the same way; its credential is never exported."""

from apps.core import privacy
from apps.social.models import SocialAccount, SocialPost

privacy.register(SocialPost, user="author", exclude=("idempotency_key",), erase={"author": None})
privacy.register(
    SocialAccount, user="connected_by", exclude=("credential_encrypted",), erase={"connected_by": None}
)
